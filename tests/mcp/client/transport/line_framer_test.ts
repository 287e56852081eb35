/**
 * @module The bounded framing under the stdio and HTTP transports: lines across chunk
 * boundaries, oversized lines kept only as their edges (with the id recovered from either end),
 * the runaway ceiling, and SSE events held whole up to the limit with CRLF and CR line endings.
 */
import assert from "node:assert/strict";
import { cappedFetch, sseEventCap } from "../../../../src/mcp/client/transport/capped_fetch.ts";
import { type Frame, LineFramer } from "../../../../src/mcp/client/transport/line_framer.ts";
import {
  isUpstreamInitiated,
  oversizeDetails,
  recoverId,
} from "../../../../src/mcp/client/transport/oversize_message.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function frames(framer: LineFramer, ...chunks: string[]): (Frame | string)[] {
  return chunks.flatMap((c) => framer.push(enc.encode(c))).map((f) =>
    f.kind === "line" ? dec.decode(f.bytes) : f
  );
}

Deno.test("line framer: lines split across chunks are joined; blank lines skipped", () => {
  const framer = new LineFramer(100, 400);
  assert.deepEqual(frames(framer, '{"a":', '1}\n\n{"b"', ":2}\n{"), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(frames(framer, '"c":3}\n'), ['{"c":3}']);
});

Deno.test("line framer: a line over the limit keeps only its edges; the next line is normal", () => {
  const framer = new LineFramer(64, 100_000);
  const big = `{"result":{"text":"${"z".repeat(5000)}"},"jsonrpc":"2.0","id":7}`;
  const out = frames(
    framer,
    big.slice(0, 30),
    big.slice(30, 4000),
    big.slice(4000) + '\n{"ok":1}\n',
  );
  assert.equal(out.length, 2);
  const oversize = out[0] as Extract<Frame, { kind: "oversize" }>;
  assert.equal(oversize.kind, "oversize");
  assert.equal(oversize.size, big.length);
  assert.equal(oversize.head.length, 256);
  assert.ok(oversize.tail.endsWith('"jsonrpc":"2.0","id":7}'));
  assert.equal(recoverId(oversize.head, oversize.tail), 7);
  assert.equal(out[1], '{"ok":1}');
});

Deno.test("line framer: an endless line is given up on at the ceiling, once", () => {
  const framer = new LineFramer(64, 1000);
  const out = frames(framer, "x".repeat(600), "x".repeat(600), "x\n{}\n");
  assert.deepEqual(out, [{ kind: "runaway", size: 1200 }]);
});

Deno.test("recoverId: the top-level id from the head or the tail, never a nested one", () => {
  assert.equal(recoverId('{"jsonrpc":"2.0","id":"a\\"b","result":{', ""), 'a"b');
  assert.equal(recoverId('{"id": 12, "result"', ""), 12);
  assert.equal(recoverId('{"result":{"x":', 'zz"},"jsonrpc":"2.0","id":"req-9"}'), "req-9");
  assert.equal(recoverId('{"result":{"x":', 'z","meta":{"id":5}}}'), null, "a nested id");
  assert.equal(recoverId("garbage", "more garbage"), null);
});

async function through(stream: TransformStream<Uint8Array, Uint8Array>, chunks: string[]) {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  }).pipeThrough(stream);
  return await new Response(body).text();
}

Deno.test("sse cap: events within the limit pass unchanged whatever the line endings", async () => {
  const events = "id: 1\nretry: 500\ndata: \n\n" +
    'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n' +
    ": keep-alive\r\r" + 'data: {"x":1}\n\n';
  for (const size of [1, 3, 7, events.length]) {
    const chunks = events.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
    assert.equal(await through(sseEventCap(200, () => []), chunks), events, `chunks of ${size}`);
  }
});

Deno.test("sse cap: an oversized event becomes an error event for the request it answers", async () => {
  const big = `id: ev-9\nevent: message\ndata: {"result":{"t":"${
    "q".repeat(3000)
  }"},"jsonrpc":"2.0","id":4}\n\n`;
  const after = 'data: {"jsonrpc":"2.0","method":"notifications/x"}\n\n';
  // On a GET stream the id comes from the event's edges; on a POST stream from the request sent.
  for (const ids of [[], [4]]) {
    const out = await through(sseEventCap(1000, () => ids), [
      big.slice(0, 500),
      big.slice(500),
      after,
    ]);
    const [error, rest] = out.split("\n\n");
    assert.match(error, /^id: ev-9\nevent: message\ndata: /);
    const message = JSON.parse(error.split("data: ")[1]);
    assert.equal(message.id, 4);
    assert.deepEqual(oversizeDetails(message.error.data), { bytes: big.length, limit: 1000 });
    assert.equal(`${rest}\n\n`, after);
  }
});

Deno.test("capped fetch: a JSON body over the limit (declared or streamed) becomes an error for the POSTed request", async () => {
  const big = JSON.stringify({ jsonrpc: "2.0", id: 3, result: { t: "w".repeat(5000) } });
  const post = {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call" }),
  };
  for (const declared of [true, false]) {
    const base = () =>
      Promise.resolve(
        new Response(
          declared ? big : new Blob([big]).stream(),
          {
            headers: {
              "content-type": "application/json",
              "mcp-session-id": "s1",
              ...(declared ? { "content-length": String(big.length) } : {}),
            },
          },
        ),
      );
    const response = await cappedFetch(1000, base)("http://127.0.0.1/mcp", post);
    assert.equal(response.headers.get("mcp-session-id"), "s1");
    const message = await response.json();
    assert.equal(message.id, 3);
    assert.match(
      message.error.message,
      /^upstream result is 50\d\d bytes, over mcp\.max_result_bytes \(1000\)$/,
    );
  }
  const small = JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} });
  const ok = await cappedFetch(
    1000,
    () => Promise.resolve(new Response(small, { headers: { "content-type": "application/json" } })),
  )("http://127.0.0.1/mcp", post);
  assert.equal(await ok.text(), small);
});

Deno.test("oversize: an upstream's own request or notification is never taken for an answer", async () => {
  assert.equal(isUpstreamInitiated('{"method":"sampling/createMessage","params":{'), true);
  assert.equal(isUpstreamInitiated('{"jsonrpc":"2.0","method":"notifications/message"'), true);
  assert.equal(isUpstreamInitiated('{"result":{"content":['), false);
  assert.equal(isUpstreamInitiated('{"jsonrpc":"2.0","id":3,"result":'), false);
  // Whatever the key order: id before method, or method only after the large params.
  assert.equal(
    isUpstreamInitiated('{"jsonrpc":"2.0","id":7,"method":"sampling/x","params":{'),
    true,
  );
  assert.equal(recoverId('{"jsonrpc":"2.0","id":7,"method":"sampling/x","params":{', 'zz"}}'), 7);
  assert.equal(
    isUpstreamInitiated('{"params":{"a":"', 'zz"},"method":"elicitation/create","id":"r-1"}'),
    true,
  );
  assert.equal(
    recoverId('{"params":{"a":"', 'zz"},"method":"elicitation/create","id":"r-1"}'),
    "r-1",
  );
  // A nested "method" is not the message's own.
  assert.equal(
    isUpstreamInitiated('{"result":{"x":', 'z","method":"m"}},"jsonrpc":"2.0","id":2}'),
    false,
  );
  // A huge log notification on the POST stream of request 4 is dropped; request 4 still waits.
  const note = `data: {"method":"notifications/message","params":{"data":"${
    "n".repeat(3000)
  }"},"jsonrpc":"2.0"}\n\n`;
  const answer = 'data: {"result":{},"jsonrpc":"2.0","id":4}\n\n';
  assert.equal(await through(sseEventCap(1000, () => [4]), [note, answer]), answer);
});
