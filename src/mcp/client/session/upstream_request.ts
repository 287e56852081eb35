/**
 * @module One request on a live upstream connection: its own timeout and the caller's cancel
 * (both sent upstream as `notifications/cancelled`), the translation of whatever went wrong into
 * one EngramError, and the trace record of it.
 */
import { EngramError, type ErrorCode } from "../../../core/errors.ts";
import type { Progress } from "../../sdk.ts";
import { ProcessTransport } from "../transport/process_transport.ts";
import type { UpstreamConnection } from "./upstream_connection.ts";
import { requestError } from "./upstream_errors.ts";

/** What a traced request was about. */
export type CallKind = "tool" | "resource" | "prompt" | "list";

/** One upstream request, as traces record it. */
export interface CallRecord {
  /** Tool or prompt name, resource URI, or the list method. */
  capability: string;
  kind: CallKind;
  latency_ms: number;
  /** `tool_error`: the tool answered with `isError: true`. */
  outcome: "ok" | "tool_error" | "error" | "timeout" | "cancelled";
  error_code: ErrorCode | null;
  /** JSON bytes of the result received, and of the params sent. */
  bytes_in: number;
  bytes_out: number;
}

/** Per-request options. */
export interface CallOptions {
  /** Aborting it cancels the request upstream. */
  signal?: AbortSignal;
  /** This request's timeout; default the session's. */
  timeoutMs?: number;
  /** Progress notifications for this request. */
  onprogress?: (progress: Progress) => void;
}

/** A request as the session sends and traces it. */
export interface RequestSpec {
  kind: CallKind;
  capability: string;
  method: string;
  params?: Record<string, unknown>;
  /** For messages: `tools/call "x"`. */
  what: string;
  /** How the SDK validates the result. */
  schema: ResultSchema;
}

/** The result schema the SDK's request takes. */
export type ResultSchema = Parameters<UpstreamConnection["client"]["request"]>[1];

/** One request: what it is, how it is bounded, and (filled in) what became of it. */
export interface OutgoingCall {
  spec: RequestSpec;
  options: CallOptions;
  server: string;
  timeoutMs: number;
  /** Told when the request shows its connection is lost. */
  onLost(conn: UpstreamConnection): void;
  /** When it was first asked for (performance.now()), connecting included. */
  started: number;
  result: unknown;
  /** Why engram aborted it, if it did. */
  aborted: "timeout" | "cancelled" | null;
}

/** Sends `call` on `conn`; its result (or why it was aborted) is left in `call`. */
export async function sendRequest(conn: UpstreamConnection, call: OutgoingCall): Promise<void> {
  const { spec, timeoutMs } = call;
  const failed = { server: call.server, what: spec.what, timeoutMs };
  const caller = call.options.signal;
  if (caller?.aborted) {
    call.aborted = "cancelled";
    throw requestError(caller.reason, {
      ...failed,
      aborted: "cancelled",
      cancelReason: String(caller.reason),
      ending: null,
      stray: null,
    });
  }
  // One controller per request, never reused and never aborted after it settles: the SDK's
  // abort listener stays attached, and a late abort would send a stray cancellation.
  const controller = new AbortController();
  // Paused while a person answers an elicitation on this connection (answer_pauses.ts).
  const timer = conn.pauses.timeout(timeoutMs, () => {
    call.aborted = "timeout";
    controller.abort(`engram: no answer within ${timeoutMs} ms`);
  });
  const cancel = () => {
    if (call.aborted) return;
    call.aborted = "cancelled";
    controller.abort(caller?.reason ?? "cancelled by the caller");
  };
  caller?.addEventListener("abort", cancel, { once: true });
  try {
    const request = { method: spec.method, params: spec.params };
    call.result = await conn.client.request(request, spec.schema, {
      signal: controller.signal,
      // engram's own timer decides, and it stands still while a person answers an elicitation,
      // so the SDK's (which cannot pause) is set as far off as a timer can be.
      timeout: MAX_TIMER_MS,
      onprogress: call.options.onprogress,
    });
  } catch (error) {
    // fetch fails with a TypeError when a remote upstream cannot be reached at all.
    if (!conn.isOpen() || (error instanceof TypeError && !call.aborted)) call.onLost(conn);
    const stdio = conn.transport instanceof ProcessTransport ? conn.transport : null;
    const ending = stdio && !conn.isOpen()
      ? await conn.ending(spec.kind === "tool" ? "mid-call" : `during ${spec.method}`)
      : null;
    throw requestError(error, {
      ...failed,
      aborted: call.aborted,
      cancelReason: caller?.aborted ? String(caller.reason) : undefined,
      ending,
      stray: stdio?.strayOutput() ?? null,
    });
  } finally {
    timer.clear();
    caller?.removeEventListener("abort", cancel);
  }
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

const encoder = new TextEncoder();

/** The trace record of a finished request. */
export function callRecord(call: OutgoingCall, failure: EngramError | null): CallRecord {
  const { spec, started } = call;
  const bytes = (v: unknown) => v === undefined ? 0 : encoder.encode(JSON.stringify(v)).length;
  return {
    capability: spec.capability,
    kind: spec.kind,
    latency_ms: performance.now() - started,
    outcome: failure
      ? call.aborted ?? "error"
      : (call.result as { isError?: boolean }).isError === true
      ? "tool_error"
      : "ok",
    error_code: failure?.code ?? null,
    bytes_in: failure ? 0 : bytes(call.result),
    bytes_out: bytes(spec.params),
  };
}

/** A Streamable HTTP 404: the server no longer knows the session. */
export function isSessionGone(error: unknown): boolean {
  const cause = error instanceof EngramError ? error.cause : error;
  return (cause as { code?: unknown } | null)?.code === 404 &&
    (cause as Error).message.startsWith("Streamable HTTP error");
}
