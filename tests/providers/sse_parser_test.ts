/** @module Tests for parseSse: line endings, multi-line data, comments and chunk boundaries. */
import assert from "node:assert/strict";
import { parseSse, type SseEvent } from "../../src/providers/sse_parser.ts";

/** A stream yielding `chunks` one per read. */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]);
      else controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSse(stream)) events.push(event);
  return events;
}

/** Every way of cutting `bytes` into two chunks, plus one byte per chunk. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.slice(0, i), bytes.slice(i)]);
  out.push([...bytes].map((b) => new Uint8Array([b])));
  return out;
}

const SAMPLE = ": comment, ignored\r\n" +
  "event: message_start\r\n" +
  'data: {"a":1}\r\n' +
  "\r\n" +
  "data: line one\n" +
  "data: line two\n" +
  "id: 7\n" +
  "\n" +
  "data:no space — ünïcødé 🎉\r" +
  "\r" +
  "event: only-event-no-data\n" +
  "\n" +
  "data\n" +
  "\n" +
  "data: [DONE]\n\n" +
  "data: unterminated at end";

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"a":1}' },
  { data: "line one\nline two", id: "7" },
  { data: "no space — ünïcødé 🎉" },
  { data: "" },
  { data: "[DONE]" },
];

Deno.test("parseSse: parses CRLF, LF and CR lines, multi-line data, comments and ids", async () => {
  const events = await collect(streamOf([new TextEncoder().encode(SAMPLE)]));
  assert.deepEqual(events, EXPECTED);
});

Deno.test("parseSse: any chunk boundary gives the same events, even inside a UTF-8 character", async () => {
  const bytes = new TextEncoder().encode(SAMPLE);
  for (const chunks of splits(bytes)) {
    assert.deepEqual(await collect(streamOf(chunks)), EXPECTED, `split ${chunks[0].length}`);
  }
});

Deno.test("parseSse: a CR at a chunk's end followed by LF is one line ending, not two", async () => {
  const enc = new TextEncoder();
  const chunks = [enc.encode("data: a\r"), enc.encode("\ndata: b\r"), enc.encode("\n\r\n")];
  assert.deepEqual(await collect(streamOf(chunks)), [{ data: "a\nb" }]);
});

Deno.test("parseSse: breaking out of the loop cancels the source stream", async () => {
  let cancelled = false;
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("data: one\n\ndata: two\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const event of parseSse(source)) {
    assert.equal(event.data, "one");
    break;
  }
  assert.equal(cancelled, true);
});

Deno.test("parseSse: a stream error reaches the consumer after the events before it", async () => {
  let reads = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (reads++ === 0) controller.enqueue(new TextEncoder().encode("data: one\n\n"));
      else controller.error(new Error("connection reset"));
    },
  });
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const event of parseSse(source)) seen.push(event.data);
  }, /connection reset/);
  assert.deepEqual(seen, ["one"]);
});
