/**
 * @module `engram mcp compile-resource` through the real CLI over real fixture upstreams: the
 * provenance stored with a compiled document (apart from its metadata, shown by `engram get` as
 * by memory_get), no new version for the same bytes, the trust rule
 * (and its fix), PDF blobs through the PDF extractor, other binary refused, path conflicts, and
 * `--all` reporting changed, unchanged and failed documents.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { PDF_TEXT } from "../../fixtures/upstream/well_behaved.ts";
import { runEngram, tempDir } from "../../helpers.ts";
import { upstreamSetup } from "../_signed_upstreams.ts";
import { assertFails } from "../_util.ts";

const DOCS_VERIFIED = { name: "docs", fixture: "well_behaved", extra: ["trust: verified"] };

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `engram get PATH --json` in the data dir. */
async function getDoc(dir: string, path: string, ...more: string[]) {
  const r = await runEngram(["get", path, "--json", ...more], { dataDir: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The manifest digest the config file holds for its first server. */
async function configDigest(dir: string): Promise<string> {
  const yaml = await Deno.readTextFile(`${dir}/config/engram.yaml`);
  return /manifest_digest: "(sha256:[0-9a-f]{64})"/.exec(yaml)![1];
}

Deno.test("compile-resource stores a resource with its provenance; the same bytes again make no new version", async () => {
  await using s = await upstreamSetup([DOCS_VERIFIED]);
  const first = await s.run(["compile-resource", "docs", "fixture://text/hello", "--json"]);
  assert.equal(first.code, 0, first.stderr);
  const out = JSON.parse(first.stdout);
  const text = "hello from the well-behaved upstream";
  assert.equal(out.status, "created");
  assert.equal(out.path, "/compiled/docs/fixture/text/hello.md");
  assert.equal(out.brain, "default");
  assert.equal(out.version, 1);
  assert.equal(out.sha256, sha256(text));
  assert.equal(out.approval, await configDigest(s.dir), "the server's identity pin at the time");

  const doc = await getDoc(s.dir, out.path);
  assert.equal(doc.content, text);
  assert.equal(doc.source, "compile");
  assert.deepEqual(doc.provenance, {
    server: "docs",
    uri: "fixture://text/hello",
    mime_type: "text/plain",
    fetched_at: out.fetched_at,
    sha256: sha256(text),
    approval: out.approval,
    version: 1,
    edited: false,
  });
  assert.ok(Date.parse(doc.provenance.fetched_at) <= Date.now());
  assert.deepEqual(doc.metadata, {}, "provenance is not kept in metadata, which agents write");

  const again = await s.run(["compile-resource", "docs", "fixture://text/hello", "--json"]);
  assert.equal(again.code, 0, again.stderr);
  const same = JSON.parse(again.stdout);
  assert.equal(same.status, "unchanged");
  assert.equal(same.version, 1);
  assert.equal(same.fetched_at, out.fetched_at, "an unchanged resource keeps its fetch time");
  const after = await getDoc(s.dir, out.path);
  assert.equal(after.version, 1);
  assert.equal(after.commit_sha, doc.commit_sha);

  const textRun = await s.run(["compile-resource", "docs", "fixture://text/hello"]);
  assert.equal(textRun.code, 0, textRun.stderr);
  assert.match(
    textRun.stdout,
    /^unchanged: fixture:\/\/text\/hello from docs has the same bytes as \/compiled\/docs\/fixture\/text\/hello\.md in brain "default" \(version 1, fetched \S+Z\); no new version\n$/,
  );

  // --path and --brain choose where it goes; a template's resource works like any other.
  assert.equal(
    (await runEngram(["brains", "create", "Team", "--slug", "team"], { dataDir: s.dir })).code,
    0,
  );
  const placed = await s.run([
    "compile-resource",
    "docs",
    "fixture://notes/alpha",
    "--path",
    "/kb/alpha.md",
    "--brain",
    "team",
  ]);
  assert.equal(placed.code, 0, placed.stderr);
  assert.match(
    placed.stdout,
    /^compiled fixture:\/\/notes\/alpha from docs into \/kb\/alpha\.md in brain "team": version 1, sha256 [0-9a-f]{16}…\n$/,
  );
  const note = await getDoc(s.dir, "/kb/alpha.md", "--brain", "team");
  assert.equal(note.title, "alpha");
  assert.equal(note.content_type, "text/markdown");

  // A path that holds some other document is never overwritten.
  const mine = await runEngram(["remember", "--path", "/kb/mine.md", "-"], {
    dataDir: s.dir,
    stdin: "# Mine\n\nmy own note",
  });
  assert.equal(mine.code, 0, mine.stderr);
  const clash = await s.run([
    "compile-resource",
    "docs",
    "fixture://text/hello",
    "--path",
    "/kb/mine.md",
  ]);
  assertFails(
    clash,
    1,
    'engram: conflict: /kb/mine.md in brain "default" already holds a document from source ingest, not from upstream docs resource fixture://text/hello; choose another path with --path, or forget that document first',
  );
  assert.equal((await getDoc(s.dir, "/kb/mine.md")).content, "# Mine\n\nmy own note");

  const missing = await s.run(["compile-resource", "docs", "fixture://nothing/here"]);
  assertFails(missing, 1, /not_found: upstream "docs" has no such resource: Resource not found/);
});

Deno.test("compile-resource reads only from servers trusted for it, and says how to allow one", async () => {
  const folder = await tempDir("engram-compile-trust-");
  await using _folder = folder;
  await Deno.writeTextFile(`${folder.path}/a.md`, "# A\n\nfrom a folder");
  const served = {
    fixture: "folder_resources",
    allow: [`--allow-read=${folder.path}`],
    args: ["--dir", folder.path],
  };
  await using s = await upstreamSetup([
    { name: "plain", ...served },
    { name: "optin", ...served, extra: ["compile: true"] },
    { name: "optout", ...served, extra: ["trust: builtin", "compile: false"] },
  ]);
  const refused = await s.run(["compile-resource", "plain", "file:///a.md"]);
  assertFails(
    refused,
    1,
    `engram: forbidden: compile-resource reads only from servers with trust verified or builtin, or with compile: true, and "plain" is user_added; after reviewing what it serves, set trust: verified or compile: true in its entry (${s.dir}/config/engram.yaml:6)`,
  );
  const optout = await s.run(["compile-resource", "optout", "file:///a.md"]);
  assertFails(
    optout,
    1,
    /forbidden: upstream server "optout" sets compile: false \(.*engram\.yaml:\d+\), so its resources are not compiled into memory; set compile: true there to allow it/,
  );
  const ok = await s.run(["compile-resource", "optin", "file:///a.md", "--json"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).path, "/compiled/optin/file/a.md");

  // Nothing was read from the refused servers: only optin has traces.
  const score = JSON.parse((await s.run(["score", "--json"])).stdout);
  assert.deepEqual(score.servers.map((x: { server: string }) => x.server), ["optin"]);

  // A server from the marketplace (or an import) is user_added until the operator marks it.
  const added = await s.run(["marketplace", "add", "memory"]);
  assert.equal(added.code, 0, added.stderr);
  assertFails(
    await s.run(["compile-resource", "memory", "memory://graph"]),
    1,
    /forbidden: .* "memory" is user_added \(added from the marketplace\); after reviewing what it serves, mark it verified with: engram mcp set memory trust=verified \(or define it under mcp\.mcp_servers in the config file with trust: verified or compile: true, and that entry overrides the one added from the marketplace; its signature and state no longer apply\)/,
  );
});

Deno.test("compile-resource: a PDF blob goes through the PDF extractor; other binary is refused with the reason", async () => {
  await using s = await upstreamSetup([DOCS_VERIFIED]);
  const pdf = await s.run(["compile-resource", "docs", "fixture://blob/hello.pdf", "--json"]);
  assert.equal(pdf.code, 0, pdf.stderr);
  const out = JSON.parse(pdf.stdout);
  assert.equal(out.path, "/compiled/docs/fixture/blob/hello.pdf.md");
  const doc = await getDoc(s.dir, out.path);
  assert.match(doc.content, new RegExp(PDF_TEXT));
  assert.equal(doc.content_type, "text/markdown");
  assert.equal(doc.metadata.source_format, "pdf");
  assert.equal(doc.provenance.mime_type, "application/pdf");
  assert.match(doc.provenance.sha256, /^[0-9a-f]{64}$/);
  assert.notEqual(doc.provenance.sha256, sha256(doc.content), "the digest is of the PDF's bytes");

  const bin = await s.run(["compile-resource", "docs", "fixture://blob/bytes.bin"]);
  assertFails(
    bin,
    2,
    "engram: upstream docs resource fixture://blob/bytes.bin is binary (application/octet-stream, 256 bytes); only text and PDF resources can be compiled into memory — look at it with: engram mcp read-resource docs fixture://blob/bytes.bin --json",
  );
  const list = await runEngram(["list", "--prefix", "/compiled/", "--json"], { dataDir: s.dir });
  assert.equal(JSON.parse(list.stdout).items.length, 1, "the refused blob stored nothing");
});

Deno.test("compile-resource --all recompiles a server's documents and reports changed, unchanged and failed", async () => {
  const folder = await tempDir("engram-compile-all-");
  await using _folder = folder;
  const f = folder.path;
  await Deno.writeTextFile(`${f}/a.md`, "# A\n\nfirst text");
  await Deno.writeTextFile(`${f}/b.txt`, "plain text b");
  await Deno.writeTextFile(`${f}/c.md`, "# C\n\nsoon gone");
  await using s = await upstreamSetup([
    {
      name: "folder",
      fixture: "folder_resources",
      allow: [`--allow-read=${f}`],
      args: ["--dir", f],
      extra: ["trust: verified"],
    },
    DOCS_VERIFIED,
  ]);
  const none = await s.run(["compile-resource", "folder", "--all"]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(
    none.stdout,
    'no documents compiled from folder in brain "default"; compile one with: engram mcp compile-resource folder URI\n',
  );
  for (const uri of ["file:///a.md", "file:///b.txt", "file:///c.md"]) {
    const r = await s.run(["compile-resource", "folder", uri]);
    assert.equal(r.code, 0, r.stderr);
  }
  // Found by its provenance wherever it lives: a --path outside /compiled/ too.
  const moved = await s.run(["compile-resource", "folder", "file:///b.txt", "--path", "/kb/b.md"]);
  assert.equal(moved.code, 0, moved.stderr);
  // Another server's document is not part of folder's refresh.
  assert.equal((await s.run(["compile-resource", "docs", "fixture://text/hello"])).code, 0);

  await Deno.writeTextFile(`${f}/a.md`, "# A\n\nsecond text");
  await Deno.remove(`${f}/c.md`);
  const all = await s.run(["compile-resource", "folder", "--all", "--json"]);
  assert.equal(all.code, 1, "a failed document fails the command");
  const report = JSON.parse(all.stdout);
  assert.equal(report.server, "folder");
  assert.equal(report.brain, "default");
  assert.deepEqual(
    [report.changed, report.unchanged, report.failed],
    [1, 2, 1],
  );
  const byPath = Object.fromEntries(
    report.documents.map((d: { path: string }) => [d.path, d]),
  );
  assert.deepEqual(Object.keys(byPath).sort(), [
    "/compiled/folder/file/a.md",
    "/compiled/folder/file/b.txt.md",
    "/compiled/folder/file/c.md",
    "/kb/b.md",
  ]);
  assert.equal(byPath["/compiled/folder/file/a.md"].status, "changed");
  assert.equal(byPath["/compiled/folder/file/a.md"].version, 2);
  assert.equal(byPath["/compiled/folder/file/b.txt.md"].status, "unchanged");
  assert.equal(byPath["/kb/b.md"].status, "unchanged");
  const gone = byPath["/compiled/folder/file/c.md"];
  assert.equal(gone.status, "failed");
  assert.equal(gone.error.code, "not_found");
  assert.match(gone.error.message, /upstream "folder" has no such resource/);

  const a = await getDoc(s.dir, "/compiled/folder/file/a.md");
  assert.equal(a.content, "# A\n\nsecond text");
  assert.equal(a.provenance.sha256, sha256("# A\n\nsecond text"));
  assert.equal(a.provenance.version, 2);
  assert.equal((await getDoc(s.dir, "/compiled/folder/file/c.md")).version, 1, "kept as it was");

  const text = await s.run(["compile-resource", "folder", "--all"]);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /^folder in brain "default": 0 changed, 3 unchanged, 1 failed\n/);
  assert.match(text.stdout, /failed\s+1\s+\/compiled\/folder\/file\/c\.md\s+file:\/\/\/c\.md/);
  assert.match(
    text.stdout,
    /\/compiled\/folder\/file\/c\.md: not_found: upstream "folder" has no such resource/,
  );

  const both = await s.run(["compile-resource", "folder", "file:///a.md", "--all"]);
  assertFails(both, 2, "give a URI or --all, not both");
  const neither = await s.run(["compile-resource", "folder"]);
  assertFails(neither, 2, /missing URI; give the resource to compile/);
  const pathAll = await s.run(["compile-resource", "folder", "--all", "--path", "/kb/x.md"]);
  assertFails(
    pathAll,
    2,
    "engram: --path names one document; --all keeps each one's path; see: engram mcp compile-resource --help\n",
  );
});
