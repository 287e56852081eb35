import assert from "node:assert/strict";
import { callErr, callOk, connectStdio, tempDir } from "../../helpers.ts";

const PAGE = `<!doctype html><html><head><title>Trail guide</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<article><h1>Trail running guide</h1>
<p>${"Pick shoes with a rock plate for technical terrain. ".repeat(12)}</p>
<h2>Hydration</h2><p>${"Carry a soft flask and drink early. ".repeat(12)}</p></article>
<footer>Copyright footer text</footer></body></html>`;

Deno.test("stdio memory_ingest_url: a page becomes readable markdown; internal addresses need the allowlist", async (t) => {
  await using dir = await tempDir();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/guide") {
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (url.pathname === "/to-metadata") {
      return new Response(null, {
        status: 302,
        headers: { location: "http://169.254.169.254/latest/meta-data/" },
      });
    }
    return new Response("missing", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    await t.step("without the allowlist, loopback is refused before any request", async () => {
      await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
      const e = await callErr(s.client, "memory_ingest_url", { url: `${base}/guide` });
      assert.equal(e.code, "forbidden");
      assert.match(
        e.message,
        /127\.0\.0\.1 is a loopback address; allow it with ingest\.allowed_url_hosts/,
      );
    });

    const config = `${dir.path}/engram.yaml`;
    await Deno.writeTextFile(config, "ingest:\n  allowed_url_hosts: [127.0.0.1]\n");
    await using s = await connectStdio(dir.path, { args: ["--tier", "write", "--config", config] });

    await t.step("an allowlisted page is fetched, converted and searchable", async () => {
      const out = await callOk<{ path: string; result: Record<string, unknown> }>(
        s.client,
        "memory_ingest_url",
        {
          url: `${base}/guide`,
        },
      );
      assert.equal(out.path, "server");
      assert.equal(out.result.status, "completed");
      assert.equal(out.result.reused, false);
      assert.match(out.result.path as string, /^\/ingest\/web\/127\.0\.0\.1-\d+\/guide\.md$/);
      const doc = await callOk<
        { content: string; title: string; metadata: Record<string, unknown> }
      >(
        s.client,
        "memory_get",
        { id: out.result.document_id },
      );
      assert.match(doc.content, /Hydration/);
      assert.doesNotMatch(doc.content, /Copyright footer|Shop/, "menus and footers are dropped");
      assert.equal(doc.metadata.source_url, `${base}/guide`);
      const hits = await callOk<{ hits: { path: string }[] }>(s.client, "memory_search", {
        query: "rock plate",
      });
      assert.equal(hits.hits[0].path, out.result.path);
      const again = await callOk<{ result: { reused: boolean } }>(s.client, "memory_ingest_url", {
        url: `${base}/guide`,
      });
      assert.equal(again.result.reused, true, "an unchanged page is not stored again");
    });

    await t.step(
      "a redirect to the metadata address is refused even with loopback allowed",
      async () => {
        const e = await callErr(s.client, "memory_ingest_url", { url: `${base}/to-metadata` });
        assert.equal(e.code, "forbidden");
        assert.match(e.message, /169\.254\.169\.254/);
      },
    );

    await t.step("404, bad schemes and malformed URLs get their own codes", async () => {
      assert.equal(
        (await callErr(s.client, "memory_ingest_url", { url: `${base}/nope` })).code,
        "not_found",
      );
      const ftp = await callErr(s.client, "memory_ingest_url", { url: "ftp://example.com/file" });
      assert.equal(ftp.code, "invalid_argument");
      assert.match(ftp.message, /ftp:/);
      const bad = await callErr(s.client, "memory_ingest_url", { url: "not a url" });
      assert.equal(bad.code, "invalid_argument");
    });
  } finally {
    await server.shutdown();
  }
});
