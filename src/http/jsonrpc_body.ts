/** @module Reading a POSTed JSON-RPC message: media type, size cap, parse, no batches, the version pin. */
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../mcp/sdk.ts";
import { unrepresentableId, unrepresentableIdMessage } from "../mcp/request_id.ts";
import { PROTOCOL_VERSION } from "../version.ts";
import { jsonError, RPC } from "./responses.ts";

/** Reads and validates a JSON-RPC POST body; a Response is the error to send instead. */
export async function readJsonRpcBody(
  req: Request,
  options: { maxBytes: number },
): Promise<JSONRPCMessage | Response> {
  const type = req.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    return jsonError(415, "Unsupported Media Type: Content-Type must be application/json");
  }
  const text = await readCapped(req, options.maxBytes);
  if (text === null) {
    return jsonError(413, `Payload Too Large: the body exceeds ${options.maxBytes} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return jsonError(400, `Parse error: ${(err as Error).message}`, { code: RPC.parseError });
  }
  if (Array.isArray(value)) {
    return jsonError(
      400,
      `Invalid Request: JSON-RPC batches are not supported by protocol ${PROTOCOL_VERSION}`,
      { code: RPC.invalidRequest },
    );
  }
  const badId = unrepresentableId(value, text);
  if (badId !== undefined) {
    return jsonError(400, unrepresentableIdMessage(badId), { code: RPC.invalidRequest });
  }
  if (!isJsonRpcMessage(value)) {
    const id = (value as { id?: unknown } | null)?.id;
    return jsonError(400, "Invalid Request: not a JSON-RPC 2.0 message", {
      code: RPC.invalidRequest,
      id: typeof id === "string" || typeof id === "number" ? id : null,
    });
  }
  return value;
}

/**
 * The envelope of a JSON-RPC 2.0 request, notification or response. Checked by hand rather than
 * with the SDK's zod union, which cost more than the rest of reading the body; the server checks
 * each method's params against its schema afterwards.
 */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return false;
  const id = m.id;
  const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  const objectOrAbsent = (v: unknown) => v === undefined || (typeof v === "object" && v !== null);
  if (typeof m.method === "string") {
    return (id === undefined || validId) && objectOrAbsent(m.params) && !Array.isArray(m.params);
  }
  if (!validId) return false;
  if ("result" in m) return typeof m.result === "object" && m.result !== null && !("error" in m);
  const e = m.error as Record<string, unknown> | undefined;
  return typeof e === "object" && e !== null && Number.isInteger(e.code) &&
    typeof e.message === "string";
}

/** Whether `message` is an `initialize` request. */
export function isInitialize(
  message: JSONRPCMessage,
): message is JSONRPCMessage & { id: string | number; params: { protocolVersion?: unknown } } {
  return "method" in message && message.method === "initialize" && "id" in message;
}

/** The version a session settles on for an `initialize` that passed {@link versionRejection}. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/**
 * The JSON-RPC error for an `initialize` asking a version engram will not speak, or null.
 * Strict by default: a silent downgrade would leave a client believing features exist that do not.
 */
export function versionRejection(
  message: JSONRPCMessage & { id: string | number; params: { protocolVersion?: unknown } },
  options: { acceptOlder: boolean },
): JSONRPCMessage | null {
  const requested = message.params?.protocolVersion;
  if (requested === PROTOCOL_VERSION) return null;
  if (options.acceptOlder && typeof requested === "string") return null;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: RPC.invalidParams,
      message: "Unsupported protocol version",
      data: { supported: [PROTOCOL_VERSION], requested: requested ?? null },
    },
  } as JSONRPCMessage;
}

/**
 * Reads the body as text, or null once it grows past `maxBytes` (declared or actual): checked as it
 * streams, so a client cannot make engram hold more. The JSON-RPC and OAuth endpoints share it.
 */
export async function readCapped(req: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    return null;
  }
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(out);
}
