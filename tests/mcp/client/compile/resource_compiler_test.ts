/**
 * @module The pure parts of compile-resource: the path derived from a URI, and what a read result
 * becomes (text, text blobs, several contents, and the refusals with their reasons).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { EngramError } from "../../../../src/core/errors.ts";
import { compiledPath } from "../../../../src/mcp/client/compile/resource_compiler.ts";
import { resourceDocument } from "../../../../src/mcp/client/compile/resource_content.ts";

const AT = { server: "docs", uri: "x://y" };

Deno.test("compiledPath: scheme, host, path and query as safe segments under /compiled/<server>/", () => {
  assert.equal(compiledPath("docs", "file:///handbook.md"), "/compiled/docs/file/handbook.md");
  assert.equal(
    compiledPath("docs", "fixture://text/hello"),
    "/compiled/docs/fixture/text/hello.md",
  );
  assert.equal(
    compiledPath("docs", "fixture://blob/hello.pdf"),
    "/compiled/docs/fixture/blob/hello.pdf.md",
  );
  assert.equal(
    compiledPath("web", "https://Example.com/a%20b/../c?page=2&x=y#frag"),
    "/compiled/web/https/example.com/c/page-2-x-y.md",
  );
  assert.equal(compiledPath("docs", "note:weird name!"), "/compiled/docs/note/weird-name.md");
  assert.equal(compiledPath("docs", "x:"), "/compiled/docs/x.md");
  const long = compiledPath("docs", `file:///${"a".repeat(400)}`);
  assert.ok(long.length <= 240, long);
  assert.match(long, /-[0-9a-f]{12}\.md$/);
  assert.notEqual(long, compiledPath("docs", `file:///${"a".repeat(401)}`));
});

Deno.test("resourceDocument: text as sent, a text blob decoded, several contents one after another", async () => {
  const text = await resourceDocument({
    contents: [{ uri: "x://y", mimeType: "text/markdown", text: "# T\n\nbody" }],
  }, AT);
  assert.equal(text.content, "# T\n\nbody");
  assert.equal(text.contentType, "text/markdown");
  assert.equal(text.sha256, createHash("sha256").update("# T\n\nbody").digest("hex"));

  const blob = await resourceDocument({
    contents: [{ uri: "x://y", mimeType: "application/json", blob: btoa('{"a":1}') }],
  }, AT);
  assert.equal(blob.content, '{"a":1}');
  assert.equal(blob.contentType, "text/plain");

  const two = await resourceDocument({
    contents: [{ uri: "x://y/1", text: "one" }, { uri: "x://y/2", text: "two" }],
  }, AT);
  assert.equal(two.content, "one\n\ntwo");
  assert.equal(two.sha256, createHash("sha256").update("onetwo").digest("hex"));
  assert.equal(two.mimeType, null);
});

Deno.test("resourceDocument refuses nothing to store, bad base64 and binary, saying why", async () => {
  const refusal = async (result: Parameters<typeof resourceDocument>[0], message: RegExp) => {
    await assert.rejects(resourceDocument(result, AT), (e: unknown) => {
      assert.ok(e instanceof EngramError);
      assert.equal(e.code, "invalid_argument");
      assert.match(e.message, message);
      return true;
    });
  };
  await refusal({ contents: [] }, /^upstream docs resource x:\/\/y has no contents/);
  await refusal({ contents: [{ uri: "x://y", text: "  \n" }] }, /is empty; nothing to compile/);
  await refusal(
    { contents: [{ uri: "x://y", mimeType: "image/png", blob: "!!not base64!!" }] },
    /sent a blob that is not valid base64/,
  );
  await refusal(
    { contents: [{ uri: "x://y", mimeType: "image/png", blob: btoa("\x89PNG\r\n") }] },
    /is binary \(image\/png, 6 bytes\); only text and PDF resources can be compiled/,
  );
  await refusal(
    { contents: [{ uri: "x://y", mimeType: "text/plain", blob: btoa("a\x00b") }] },
    /looks binary \(it contains NUL bytes\)/,
  );
});
