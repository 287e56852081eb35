/**
 * @module A `fetch` for the SDK's HTTP client transports that holds upstream bodies to
 * `mcp.max_result_bytes` without buffering past it. The SDK reads a JSON response whole and an SSE
 * event whole; here a JSON body over the limit, or an SSE event over it, is replaced by a
 * synthetic JSON-RPC error for the request it answers (from the POST body we sent, or recovered
 * from the event's edges on a GET stream), so one oversized answer fails one call, not the session.
 */
import type { RequestId } from "../../sdk.ts";
import {
  BoundedRun,
  isUpstreamInitiated,
  oversizeRequestRefusal,
  oversizeResponse,
  recoverId,
} from "./oversize_message.ts";

/** The fetch signature the SDK transports accept. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The ids of the requests a response may answer, worked out only when one is oversized. */
export type RequestIds = () => RequestId[];

/** `base` with every successful response body held to `limit` bytes per JSON body or SSE event. */
export function cappedFetch(limit: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body || response.status < 200 || response.status > 299) return response;
    const ids = requestIds(init);
    const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type === "text/event-stream") {
      // A Streamable HTTP session names itself in a header; a legacy SSE stream does not.
      const session = init && new Headers(init.headers).has("mcp-session-id");
      const refuse = session ? refusal(url, init, { limit, base }) : undefined;
      return rebuilt(response, response.body.pipeThrough(sseEventCap(limit, ids, refuse)));
    }
    return await boundedBody(response, limit, ids);
  };
}

/**
 * How to answer an upstream's own oversized request that came on a Streamable HTTP stream: with
 * an error, POSTed to the same endpoint with the same session headers, so that the upstream is
 * not left waiting. (On a legacy SSE stream replies go to an endpoint the stream announced; there
 * the request is only dropped.)
 */
function refusal(
  url: string | URL,
  init: RequestInit,
  o: { limit: number; base: FetchLike },
): (id: RequestId, bytes: number) => void {
  return (id, bytes) => {
    const headers = new Headers(init.headers);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    const body = JSON.stringify(oversizeRequestRefusal(id, bytes, o.limit));
    void o.base(url, { method: "POST", headers, body })
      .then((r) => r.body?.cancel())
      .catch(() => {});
  };
}

/**
 * Ids of the requests in a POST body we are sending (JSON-RPC, one message or a batch), parsed
 * on first ask: only an oversized answer needs them.
 */
function requestIds(init: RequestInit | undefined): RequestIds {
  let ids: RequestId[] | undefined;
  return () => ids ??= parsedIds(init);
}

function parsedIds(init: RequestInit | undefined): RequestId[] {
  if (init?.method !== "POST" || typeof init.body !== "string") return [];
  try {
    const parsed = JSON.parse(init.body);
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter((m) => m && typeof m === "object" && "method" in m && "id" in m)
      .map((m) => m.id as RequestId);
  } catch {
    return [];
  }
}

/** The same response with another body, and without the length of the old one. */
function rebuilt(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** The synthetic answer for an oversized JSON body: one error per request it answered. */
function oversizeJson(response: Response, ids: RequestIds, bytes: number, limit: number) {
  const errors = ids().map((id) => oversizeResponse(id, bytes, limit));
  const body = errors.length === 1 ? errors[0] : errors.length ? errors : oversizeResponse(
    // Nothing of ours to answer (a notification's POST got a JSON body): an id-less error.
    null as unknown as RequestId,
    bytes,
    limit,
  );
  const out = rebuilt(response, JSON.stringify(body));
  out.headers.set("content-type", "application/json");
  return out;
}

/** Reads a non-stream body up to `limit` bytes; over it, cancels the rest. */
async function boundedBody(response: Response, limit: number, ids: RequestIds) {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await response.body!.cancel().catch(() => {});
    return oversizeJson(response, ids, declared, limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return oversizeJson(response, ids, size, limit);
    }
    chunks.push(value);
  }
  return rebuilt(response, new Blob(chunks as BlobPart[]));
}

/**
 * Passes SSE events through whole, one at a time, each at most `limit` bytes. An event is held
 * until its blank line (the SDK's parser would hold it too); a longer one is dropped while it
 * streams, keeping only its edges, and replaced by an error event for the request it answers.
 */
export function sseEventCap(
  limit: number,
  ids: RequestIds,
  refuse?: (id: RequestId, bytes: number) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const event = new BoundedRun(limit);
  /** Bytes of the current line; 0 right after a line break. */
  let lineLength = 0;
  let afterCR = false;
  const encoder = new TextEncoder();

  function endEvent(controller: TransformStreamDefaultController<Uint8Array>) {
    const ended = event.end();
    if (!ended.oversize) {
      for (const piece of ended.pieces) controller.enqueue(piece);
      return;
    }
    const { head, tail, size } = ended;
    const eventId = /^id:\s?([^\r\n]*)/m.exec(head)?.[1];
    const data = dataOf(head);
    // An oversized request or notification from the upstream is never taken for the answer: a
    // request is refused where it can be, a notification dropped. Otherwise the id is read from
    // the event, or is the one request this POST sent.
    if (isUpstreamInitiated(data, tail)) {
      const asked = recoverId(data, tail);
      if (asked !== null) refuse?.(asked, size);
      return;
    }
    const sent = ids();
    const id = recoverId(data, tail) ?? (sent.length === 1 ? sent[0] : null);
    if (id === null) return;
    const error = JSON.stringify(oversizeResponse(id, size, limit));
    const idLine = eventId === undefined ? "" : `id: ${eventId}\n`;
    controller.enqueue(encoder.encode(`${idLine}event: message\ndata: ${error}\n\n`));
  }

  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte !== 10 && byte !== 13) {
          lineLength++;
          afterCR = false;
          continue;
        }
        if (byte === 10 && afterCR) {
          // The LF of a CRLF: the line already ended at the CR.
          afterCR = false;
          continue;
        }
        afterCR = byte === 13;
        const blank = lineLength === 0;
        lineLength = 0;
        if (!blank) continue;
        // A blank line ends the event; a CRLF's LF right after it belongs to it.
        let end = i + 1;
        if (byte === 13 && chunk[end] === 10) {
          end++;
          i++;
          afterCR = false;
        }
        event.add(chunk.subarray(start, end));
        endEvent(controller);
        start = end;
      }
      event.add(chunk.subarray(start));
    },
    flush(controller) {
      // An unfinished event at the end of the stream is passed on; the parser discards it.
      const ended = event.end();
      if (!ended.oversize) { for (const piece of ended.pieces) controller.enqueue(piece); }
    },
  });
}

/** The JSON after the first `data:` of an event's head. */
function dataOf(head: string): string {
  const at = head.search(/(^|\n)data:/);
  if (at < 0) return "";
  return head.slice(head.indexOf("data:", at) + 5).replace(/^ /, "");
}
