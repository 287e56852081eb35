/**
 * @module What engram does with an upstream message over `mcp.max_result_bytes`: it never holds
 * the message, only its first and last few hundred bytes, and from those recovers the JSON-RPC id
 * so that the one request waiting for it fails with a clear error while the session lives on.
 * Shared by the stdio framer and the HTTP/SSE byte cap.
 */
import type { JSONRPCMessage, RequestId } from "../../sdk.ts";

/** How many bytes of an oversized message's start and end are kept to find its id. */
const EDGE_BYTES = 256;

/** Marks the synthetic error in `error.data`, so the session can tell it from an upstream error. */
const OVERSIZE_MARK = "engram.max_result_bytes";

/** A JSON string literal. */
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** A JSON value that is not an object or array: the values `jsonrpc`, `id` and `method` take. */
const SCALAR = String.raw`(?:${STRING}|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`;
/** The next `"key":` of an object, at the start of the text. */
const LEAD_KEY = new RegExp(String.raw`^\s*(${STRING})\s*:\s*`);
/** A scalar value and what ends it (`,` or `}`), at the start of the text. */
const LEAD_VALUE = new RegExp(String.raw`^(${SCALAR})\s*([,}])`);
/**
 * The last `,"key":scalar` before the end of the text. Unescaped quotes only delimit strings, so a
 * match cannot start inside one; and the object's own closing brace was taken off first, so a
 * nested object ending in the same pair (followed by a second brace) cannot match.
 */
const TRAIL_PAIR = new RegExp(String.raw`,\s*(${STRING})\s*:\s*(${SCALAR})\s*$`);

/** Marks a key whose value is an object, an array, or cut off by the edge. */
const UNREAD = Symbol("unread");

/**
 * The top-level keys an oversized message shows at its edges: those before its first large value
 * (read from the head) and those after its last one (from the tail), with their scalar values.
 * JSON-RPC fixes no key order — the TypeScript SDK writes `method, params, jsonrpc, id`, others
 * `jsonrpc, id, method, params` — so both edges are read, whatever the order.
 */
function edgeKeys(head: string, tail: string): Map<string, unknown> {
  const keys = new Map<string, unknown>();
  let rest = /^\s*\{/.exec(head) ? head.slice(head.indexOf("{") + 1) : null;
  while (rest !== null) {
    const key = LEAD_KEY.exec(rest);
    if (!key) break;
    const name = parseJson(key[1]);
    rest = rest.slice(key[0].length);
    const value = LEAD_VALUE.exec(rest);
    if (typeof name === "string") keys.set(name, value ? parseJson(value[1]) : UNREAD);
    if (!value || value[2] === "}") break;
    rest = rest.slice(value[0].length);
  }
  let end = /\}\s*$/.exec(tail) ? tail.slice(0, tail.lastIndexOf("}")) : null;
  while (end !== null) {
    const pair = TRAIL_PAIR.exec(end);
    if (!pair) break;
    const name = parseJson(pair[1]);
    if (typeof name === "string" && !keys.has(name)) keys.set(name, parseJson(pair[2]));
    end = end.slice(0, pair.index);
  }
  return keys;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return UNREAD;
  }
}

/** The id of a message known only by its first and last bytes, or null. */
export function recoverId(head: string, tail: string): RequestId | null {
  const id = edgeKeys(head, tail).get("id");
  return typeof id === "number" || typeof id === "string" ? id : null;
}

/**
 * Whether an oversized message is a request or notification from the upstream (it has a
 * top-level `method`, before or after its large value): those are refused or dropped, never
 * mistaken for the answer to one of our requests (ids of the two directions are separate
 * namespaces, so a matching number proves nothing).
 */
export function isUpstreamInitiated(head: string, tail = ""): boolean {
  return edgeKeys(head, tail).has("method");
}

/** The error response engram puts in place of an oversized result. */
export function oversizeResponse(id: RequestId, bytes: number, limit: number): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32603,
      message: `upstream result is ${bytes} bytes, over mcp.max_result_bytes (${limit})`,
      data: { reason: OVERSIZE_MARK, bytes, limit },
    },
  };
}

/**
 * engram's answer to an upstream's own request over the limit (say a sampling request carrying a
 * large document): an error, so that the upstream is not left waiting for an answer that never
 * comes.
 */
export function oversizeRequestRefusal(
  id: RequestId,
  bytes: number,
  limit: number,
): JSONRPCMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32600,
      message:
        `request is ${bytes} bytes, over engram's mcp.max_result_bytes (${limit}); send less`,
      data: { reason: OVERSIZE_MARK, bytes, limit },
    },
  };
}

/** The size and limit from an oversize error's `data`, or null for any other error. */
export function oversizeDetails(data: unknown): { bytes: number; limit: number } | null {
  if (!data || typeof data !== "object") return null;
  const d = data as { reason?: unknown; bytes?: unknown; limit?: unknown };
  if (d.reason !== OVERSIZE_MARK || typeof d.bytes !== "number" || typeof d.limit !== "number") {
    return null;
  }
  return { bytes: d.bytes, limit: d.limit };
}

/** The first and last EDGE_BYTES of a byte run too large to keep, as it streams past. */
class ByteEdges {
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array = new Uint8Array(0);
  /** Bytes seen so far. */
  size = 0;

  /** Adds the next piece of the run. */
  add(piece: Uint8Array): void {
    this.size += piece.length;
    if (this.#head.length < EDGE_BYTES) {
      this.#head = concatBytes([this.#head, piece.subarray(0, EDGE_BYTES - this.#head.length)]);
    }
    const tail = piece.length >= EDGE_BYTES
      ? piece.subarray(piece.length - EDGE_BYTES)
      : concatBytes([
        this.#tail.subarray(Math.max(0, this.#tail.length + piece.length - EDGE_BYTES)),
        piece,
      ]);
    this.#tail = tail.slice();
  }

  /** The start and end as text (a split character at either edge decodes as U+FFFD). */
  text(): { head: string; tail: string } {
    const decoder = new TextDecoder();
    return { head: decoder.decode(this.#head), tail: decoder.decode(this.#tail) };
  }
}

/** One run of bytes (a line, an event) as it ends. */
export type EndedRun =
  /** Within the limit: its pieces, in order. */
  | { oversize: false; pieces: Uint8Array[]; size: number }
  /** Over it: its size and edges, the middle discarded. */
  | { oversize: true; size: number; head: string; tail: string };

/**
 * A run of bytes held as its pieces while it is within `limit`; past it, only its edges are kept,
 * so a run of any length costs a few hundred bytes.
 */
export class BoundedRun {
  readonly #limit: number;
  #pieces: Uint8Array[] = [];
  #size = 0;
  #edges: ByteEdges | null = null;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Bytes of the run so far. */
  get size(): number {
    return this.#edges?.size ?? this.#size;
  }

  /** Adds the next piece of the run. */
  add(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.#edges) return this.#edges.add(piece);
    if (this.#size + piece.length <= this.#limit) {
      this.#pieces.push(piece);
      this.#size += piece.length;
      return;
    }
    // Over the limit: keep the edges of what was held and of what comes, nothing else.
    this.#edges = new ByteEdges();
    for (const held of this.#pieces) this.#edges.add(held);
    this.#edges.add(piece);
    this.#pieces = [];
    this.#size = 0;
  }

  /** Ends the run, and starts the next one empty. */
  end(): EndedRun {
    const edges = this.#edges;
    const pieces = this.#pieces;
    const size = this.#size;
    this.#edges = null;
    this.#pieces = [];
    this.#size = 0;
    if (edges) return { oversize: true, size: edges.size, ...edges.text() };
    return { oversize: false, pieces, size };
  }
}

/** `chunks` in one new array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
