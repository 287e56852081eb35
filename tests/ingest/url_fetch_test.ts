/**
 * @module Tests for fetchUrl against a real HTTP server on loopback. Nothing leaves the machine:
 * non-loopback hosts only ever reach a fake resolver and are refused before any connection.
 */
import assert from "node:assert/strict";
import { EngramError, type ErrorCode } from "../../src/core/errors.ts";
import { fetchUrl } from "../../src/ingest/url_fetch.ts";

const LOOPBACK = ["127.0.0.1"];
const MiB = 1024 * 1024;

/** Asserts that `promise` rejects with an EngramError of `code` whose message matches. */
async function assertFails(promise: Promise<unknown>, code: ErrorCode, message: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

/** A loopback server that records request paths; shut down on dispose. */
function serve(
  handler: (req: Request, url: URL) => Response | Promise<Response>,
): { base: string; port: number; paths: string[] } & AsyncDisposable {
  const paths: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    paths.push(url.pathname);
    return handler(req, url);
  });
  const port = server.addr.port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    paths,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A fake resolver: known names map to fixed addresses, anything else fails to resolve. */
function fakeResolve(table: Record<string, string[]>): (host: string) => Promise<string[]> {
  return (host) => {
    const found = table[host];
    return found ? Promise.resolve(found) : Promise.reject(new Error(`NXDOMAIN ${host}`));
  };
}

function redirect(location: string, status = 302): Response {
  return new Response(null, { status, headers: { location } });
}

const PAGE = "<html><head><title>Hello</title></head><body><p>Hi there</p></body></html>";

Deno.test("fetchUrl: fetches an HTML page from an allowlisted host", async () => {
  await using server = serve(() =>
    new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
  );
  const body = await fetchUrl(`${server.base}/page`, { allowHosts: LOOPBACK });
  assert.equal(body.url, `${server.base}/page`);
  assert.equal(body.status, 200);
  assert.equal(body.contentType, "text/html; charset=utf-8");
  assert.equal(new TextDecoder().decode(body.bytes), PAGE);
  assert.deepEqual(server.paths, ["/page"]);
});

Deno.test("fetchUrl: follows a redirect chain within the cap, relative and absolute", async () => {
  await using server = serve((_req, url) => {
    const m = /^\/r\/(\d+)$/.exec(url.pathname);
    if (!m) return new Response("final", { headers: { "content-type": "text/plain" } });
    const n = Number(m[1]);
    if (n === 0) return redirect("/final", 308);
    // Alternate relative and absolute Locations, and the redirect statuses.
    const statuses = [301, 302, 303, 307];
    return redirect(n % 2 ? `${n - 1}` : `${url.origin}/r/${n - 1}`, statuses[n % 4]);
  });
  const body = await fetchUrl(`${server.base}/r/4#frag`, { allowHosts: LOOPBACK });
  assert.equal(body.url, `${server.base}/final`);
  assert.equal(new TextDecoder().decode(body.bytes), "final");
  assert.deepEqual(server.paths, ["/r/4", "/r/3", "/r/2", "/r/1", "/r/0", "/final"]);
});

Deno.test("fetchUrl: a redirect loop is invalid_argument", async () => {
  await using server = serve((_req, url) => redirect(url.pathname === "/a" ? "/b" : "/a"));
  await assertFails(
    fetchUrl(`${server.base}/a`, { allowHosts: LOOPBACK }),
    "invalid_argument",
    new RegExp(`redirect loop at ${server.base}/a`),
  );
  assert.deepEqual(server.paths, ["/a", "/b"]);
});

Deno.test("fetchUrl: more redirects than maxRedirects is invalid_argument", async () => {
  await using server = serve((_req, url) => {
    const n = Number(url.pathname.slice(1));
    return redirect(`/${n + 1}`);
  });
  await assertFails(
    fetchUrl(`${server.base}/0`, { allowHosts: LOOPBACK, maxRedirects: 2 }),
    "invalid_argument",
    /too many redirects \(2\).*\/3/,
  );
  assert.deepEqual(server.paths, ["/0", "/1", "/2"]);
});

Deno.test("fetchUrl: a redirect to a non-allowlisted loopback address is forbidden", async () => {
  // "localhost" is allowlisted; the redirect to 127.0.0.1 (a different host) is not.
  await using server = serve((_req, url) =>
    url.pathname === "/start" ? redirect(`http://127.0.0.1:${url.port}/x`) : new Response("x")
  );
  await assertFails(
    fetchUrl(`http://localhost:${server.port}/start`, { allowHosts: ["localhost"] }),
    "forbidden",
    new RegExp(
      `refusing to fetch http://127\\.0\\.0\\.1:${server.port}/x: 127\\.0\\.0\\.1 is a loopback address; allow it with ingest\\.allowed_url_hosts`,
    ),
  );
  assert.deepEqual(server.paths, ["/start"]);
});

Deno.test("fetchUrl: redirects to metadata and private addresses are refused before connecting", async () => {
  const targets: Record<string, string> = {
    "/meta": "http://169.254.169.254/latest/meta-data/",
    "/mapped": "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "/google": "http://metadata.google.internal/computeMetadata/v1/",
    "/intranet": "http://intranet.example/",
  };
  await using server = serve((_req, url) => redirect(targets[url.pathname]));
  // The fake resolver answers instead of DNS: intranet.example has one public, one private address.
  const resolve = fakeResolve({ "intranet.example": ["93.184.216.34", "10.0.0.7"] });
  const options = { allowHosts: LOOPBACK, resolve };
  const expected: Record<string, RegExp> = {
    "/meta": /169\.254\.169\.254 is a link-local \(cloud metadata\) address/,
    "/mapped": /::ffff:a9fe:a9fe is a link-local \(cloud metadata\) \(IPv4-mapped\) address/,
    "/google": /metadata\.google\.internal is a local or cloud metadata host name/,
    "/intranet": /10\.0\.0\.7 is a private address \(intranet\.example resolves to it\)/,
  };
  for (const [path, message] of Object.entries(expected)) {
    await assertFails(fetchUrl(`${server.base}${path}`, options), "forbidden", message);
  }
  assert.deepEqual(server.paths, Object.keys(expected));
});

Deno.test("fetchUrl: loopback without an allowlist entry is refused before any request", async () => {
  await using server = serve(() => new Response(PAGE));
  await assertFails(
    fetchUrl(`${server.base}/`, { allowHosts: [] }),
    "forbidden",
    new RegExp(`refusing to fetch ${server.base}/: 127\\.0\\.0\\.1 is a loopback address`),
  );
  await assertFails(
    fetchUrl(`http://localhost:${server.port}/`, { allowHosts: ["example.com"] }),
    "forbidden",
    /localhost is a local or cloud metadata host name/,
  );
  await assertFails(
    fetchUrl(`http://[::ffff:127.0.0.1]:${server.port}/`, { allowHosts: [] }),
    "forbidden",
    /::ffff:7f00:1 is a loopback \(IPv4-mapped\) address/,
  );
  // A name resolving to loopback is refused too, even if its other address is public.
  await assertFails(
    fetchUrl(`http://sneaky.example:${server.port}/`, {
      allowHosts: [],
      resolve: fakeResolve({ "sneaky.example": ["93.184.216.34", "127.0.0.1"] }),
    }),
    "forbidden",
    /127\.0\.0\.1 is a loopback address \(sneaky\.example resolves to it\)/,
  );
  assert.deepEqual(server.paths, []);
});

Deno.test("fetchUrl: a host that cannot be resolved is provider_unavailable", async () => {
  const error = await fetchUrl("http://nowhere.example/", {
    allowHosts: [],
    resolve: fakeResolve({}),
  }).catch((e) => e);
  assert.ok(error instanceof EngramError);
  assert.equal(error.code, "provider_unavailable");
  assert.match(error.message, /cannot resolve host nowhere\.example: NXDOMAIN/);
  assert.equal(error.retryable, true);
  await assertFails(
    fetchUrl("http://empty.example/", {
      allowHosts: [],
      resolve: fakeResolve({ "empty.example": [] }),
    }),
    "provider_unavailable",
    /cannot resolve host empty\.example: no addresses/,
  );
});

Deno.test("fetchUrl: schemes other than http and https are invalid_argument", async () => {
  const cases: Record<string, RegExp> = {
    "file:///etc/passwd": /"file:".*only http and https/,
    "ftp://example.com/x": /"ftp:".*only http and https/,
    "data:text/plain,hello": /"data:".*only http and https/,
    "javascript:alert(1)": /"javascript:".*only http and https/,
    "not a url": /not a valid URL: not a url/,
  };
  for (const [url, message] of Object.entries(cases)) {
    await assertFails(fetchUrl(url, { allowHosts: [] }), "invalid_argument", message);
  }
});

Deno.test("fetchUrl: a redirect to a file: URL is invalid_argument", async () => {
  await using server = serve(() => redirect("file:///etc/passwd"));
  await assertFails(
    fetchUrl(`${server.base}/`, { allowHosts: LOOPBACK }),
    "invalid_argument",
    /"file:" \(redirected from .*\): only http and https/,
  );
});

Deno.test("fetchUrl: HTTP error statuses map to error codes", async () => {
  await using server = serve((_req, url) =>
    new Response("nope", { status: Number(url.pathname.slice(1)) })
  );
  const cases: readonly (readonly [number, ErrorCode, RegExp])[] = [
    [404, "not_found", /\/404 returned 404 Not Found/],
    [410, "not_found", /\/410 returned 410 Gone/],
    [403, "invalid_argument", /\/403 returned 403 Forbidden/],
    [429, "rate_limited", /\/429 returned 429 Too Many Requests/],
    [500, "provider_unavailable", /\/500 returned 500 Internal Server Error/],
    [503, "provider_unavailable", /\/503 returned 503 Service Unavailable/],
  ];
  for (const [status, code, message] of cases) {
    await assertFails(
      fetchUrl(`${server.base}/${status}`, { allowHosts: LOOPBACK }),
      code,
      message,
    );
  }
});

Deno.test("fetchUrl: a closed port is provider_unavailable naming the host", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await assertFails(
    fetchUrl(`http://127.0.0.1:${port}/`, { allowHosts: LOOPBACK }),
    "provider_unavailable",
    new RegExp(`cannot connect to 127\\.0\\.0\\.1:${port}`),
  );
});

Deno.test("fetchUrl: a server slower than timeoutMs is provider_unavailable", async () => {
  const { promise: release, resolve: doRelease } = Promise.withResolvers<void>();
  await using server = serve(async () => {
    await release;
    return new Response("late");
  });
  try {
    await assertFails(
      fetchUrl(`${server.base}/slow`, { allowHosts: LOOPBACK, timeoutMs: 100 }),
      "provider_unavailable",
      new RegExp(`timed out after 100 ms fetching ${server.base}/slow`),
    );
  } finally {
    doRelease();
  }
});

Deno.test("fetchUrl: a body that stalls past timeoutMs is provider_unavailable", async () => {
  const { promise: release, resolve: doRelease } = Promise.withResolvers<void>();
  await using server = serve(() => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sent) {
          sent = true;
          return controller.enqueue(new TextEncoder().encode("start"));
        }
        await release;
        controller.close();
      },
    });
    return new Response(body);
  });
  try {
    await assertFails(
      fetchUrl(`${server.base}/stall`, { allowHosts: LOOPBACK, timeoutMs: 150 }),
      "provider_unavailable",
      /timed out after 150 ms/,
    );
  } finally {
    doRelease();
  }
});

Deno.test("fetchUrl: the caller's signal cancels the fetch", async () => {
  const controller = new AbortController();
  controller.abort();
  await assertFails(
    fetchUrl("http://127.0.0.1:9/", { allowHosts: LOOPBACK, signal: controller.signal }),
    "provider_unavailable",
    /fetching http:\/\/127\.0\.0\.1:9\/ was cancelled/,
  );
});

Deno.test("fetchUrl: a streamed body over the cap stops early with file_too_large", async () => {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const total = 6 * MiB;
  // The server holds back everything past the cap plus two chunks until the client has given up:
  // a client that read the whole 6 MiB before judging it would time out instead.
  const gate = 5 * MiB + 2 * chunk.byteLength;
  let produced = 0;
  const { promise: release, resolve: doRelease } = Promise.withResolvers<void>();
  const { promise: cancelled, resolve: onCancel } = Promise.withResolvers<void>();
  await using server = serve(() => {
    // Without Content-Length, so only the byte count can stop it.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (produced >= gate) await release;
        if (produced >= total) return controller.close();
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        onCancel();
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain" } });
  });
  let producedAtFailure = -1;
  try {
    await assertFails(
      fetchUrl(`${server.base}/big`, { allowHosts: LOOPBACK, timeoutMs: 10_000 }),
      "file_too_large",
      new RegExp(`response body of ${server.base}/big exceeds 5 MiB; .*memory_ingest_file`),
    );
    producedAtFailure = produced;
  } finally {
    doRelease();
  }
  assert.ok(producedAtFailure <= gate, `server produced ${producedAtFailure} of ${total} bytes`);
  // The client dropped the connection, so the server's stream is cancelled rather than finished.
  await cancelled;
  assert.ok(produced < total, `server produced ${produced} of ${total} bytes`);
});

Deno.test("fetchUrl: a declared Content-Length over the cap fails before reading", async () => {
  await using server = serve((_req, url) =>
    new Response("x".repeat(Number(url.pathname.slice(1))), {
      headers: { "content-type": "text/plain" },
    })
  );
  await assertFails(
    fetchUrl(`${server.base}/2048`, { allowHosts: LOOPBACK, maxBytes: 1024 }),
    "file_too_large",
    /exceeds 1 KiB/,
  );
  const exact = await fetchUrl(`${server.base}/1024`, { allowHosts: LOOPBACK, maxBytes: 1024 });
  assert.equal(exact.bytes.byteLength, 1024);
});
