/**
 * @module What went wrong with one upstream request, as one EngramError naming the server, the
 * request and the cause: a timeout (and that it was cancelled upstream), a crash mid-call (exit
 * code and the end of stderr), a result over `mcp.max_result_bytes`, or the upstream's own
 * JSON-RPC error. Upstream words in messages are neutralised: they reach terminals.
 */
import { EngramError } from "../../../core/errors.ts";
import { McpError } from "../../sdk.ts";
import { oversizeDetails } from "../transport/oversize_message.ts";
import type { StrayOutput } from "../transport/process_transport.ts";
import { headExcerpt, tailExcerpt } from "../upstream_text.ts";

/** What is known about a failed request. */
export interface FailedRequest {
  server: string;
  /** The request, for messages: `tools/call "slow"`, `resources/read "x://y"`, `tools/list`. */
  what: string;
  /** Why engram aborted it, if engram did. */
  aborted: "timeout" | "cancelled" | null;
  timeoutMs: number;
  /** The caller's reason, for a cancel. */
  cancelReason?: string;
  /** How the connection ended, if it did ("crashed mid-call (exit code 3); stderr: …"). */
  ending: string | null;
  /** Non-JSON-RPC lines the upstream wrote to stdout. */
  stray: StrayOutput | null;
}

/** The EngramError for a failed request. */
export function requestError(error: unknown, failed: FailedRequest): EngramError {
  if (error instanceof EngramError) return error;
  const who = `upstream ${JSON.stringify(failed.server)}`;
  const doctor = `check it with: engram mcp doctor ${failed.server}`;
  const stray = failed.stray?.last
    ? `; it wrote ${failed.stray.lines} line(s) to stdout that are not JSON-RPC, the last: ${failed.stray.last}`
    : "";
  if (failed.aborted === "timeout") {
    return new EngramError(
      "provider_unavailable",
      `${who} did not answer ${failed.what} within ${failed.timeoutMs} ms, so engram cancelled it${stray}; if it needs longer, raise its request_timeout_ms (engram mcp set ${failed.server} request_timeout_ms=MS, or in its config entry) within mcp.request_timeout_ms, or ${doctor}`,
      { cause: error },
    );
  }
  if (failed.aborted === "cancelled") {
    return new EngramError(
      "provider_unavailable",
      `${failed.what} on ${who} was cancelled${
        failed.cancelReason ? ` (${headExcerpt(failed.cancelReason, 120)})` : ""
      }; the upstream was told (notifications/cancelled)`,
      { cause: error },
    );
  }
  if (failed.ending !== null) {
    return new EngramError("provider_unavailable", `${who} ${failed.ending}; ${doctor}`, {
      cause: error,
    });
  }
  if (error instanceof McpError) return mcpErrorOf(error, who, failed);
  return new EngramError(
    "provider_unavailable",
    `${who} failed ${failed.what}: ${tailExcerpt(errorText(error), 300)}${stray}; ${doctor}`,
    { cause: error },
  );
}

function mcpErrorOf(error: McpError, who: string, failed: FailedRequest): EngramError {
  const oversize = oversizeDetails(error.data);
  if (oversize) {
    return new EngramError(
      "file_too_large",
      `${who} answered ${failed.what} with ${oversize.bytes} bytes, over mcp.max_result_bytes (${oversize.limit}); ask for less, or raise mcp.max_result_bytes`,
      { cause: error },
    );
  }
  const said = headExcerpt(error.message.replace(/^(MCP error -?\d+:\s*)+/, ""), 300);
  switch (error.code) {
    case -32602: // invalid params; SDK servers also say "Tool x not found" with it
      return new EngramError(
        /not found|unknown/i.test(said) ? "not_found" : "invalid_argument",
        `${who} refused ${failed.what}: ${said}`,
        { cause: error },
      );
    case -32002: // resource not found
      return new EngramError("not_found", `${who} has no such resource: ${said}`, {
        cause: error,
      });
    case -32601:
      return new EngramError(
        "not_implemented",
        `${who} does not implement ${failed.what.split(" ")[0]}: ${said}`,
        { cause: error },
      );
    case -32000: // connection closed without a known ending (an HTTP session that went away)
      return new EngramError(
        "provider_unavailable",
        `${who} closed the connection during ${failed.what}; check it with: engram mcp doctor ${failed.server}`,
        { cause: error },
      );
    default:
      return new EngramError(
        "provider_unavailable",
        `${who} failed ${failed.what}: ${said} (JSON-RPC error ${error.code})`,
        { cause: error },
      );
  }
}

/**
 * An error's message with its causes' ("fetch failed: error sending request …: Connection
 * refused"), skipping a cause the message already contains.
 */
export function errorText(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 3; depth++) {
    if (!text.includes(cause.message)) text += `: ${cause.message}`;
    cause = cause.cause;
  }
  return text;
}
