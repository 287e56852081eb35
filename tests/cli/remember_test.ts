import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, runJson, writeText } from "./_util.ts";

interface DocumentRecord {
  id: string;
  brain_id: string;
  title: string;
  path: string;
  source: string;
  content_type: string;
  byte_size: number;
  checksum_sha256: string;
  metadata: Record<string, unknown>;
  commit_sha: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  version: number;
}

const NOTE = "# Running plan\n\nTuesday intervals, Sunday long run.\n";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("remember FILE --json prints a full DocumentRecord with tags comma-joined", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plan.md", NOTE);
  const doc = await runJson<DocumentRecord>(
    ["remember", "plan.md", "--tag", "sport", "--tag", "health", "--json"],
    { dataDir: dir.path },
  );
  assert.match(doc.id, /^doc_/);
  assert.match(doc.brain_id, /^brn_/);
  assert.equal(doc.title, "Running plan");
  assert.equal(doc.path, "/memory/global/running-plan.md");
  assert.equal(typeof doc.source, "string");
  assert.equal(doc.content_type, "text/markdown");
  assert.equal(doc.byte_size, new TextEncoder().encode(NOTE).length);
  assert.match(doc.checksum_sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(doc.metadata, { tags: "sport,health" });
  assert.match(doc.commit_sha, /^[0-9a-f]{7,64}$/);
  assert.ok(!Number.isNaN(Date.parse(doc.created_at)), doc.created_at);
  assert.ok(!Number.isNaN(Date.parse(doc.updated_at)), doc.updated_at);
  assert.equal(doc.deleted_at, null);
  assert.equal(doc.version, 1);
  for (
    const key of [
      "id",
      "brain_id",
      "title",
      "path",
      "source",
      "content_type",
      "byte_size",
      "checksum_sha256",
      "metadata",
      "commit_sha",
      "created_at",
      "updated_at",
      "deleted_at",
    ]
  ) assert.ok(key in doc, `DocumentRecord lacks ${key}`);
});

Deno.test("remember: checksum_sha256 is the SHA-256 of the file and byte_size counts its UTF-8 bytes", async () => {
  await using dir = await tempDir();
  const text = "# Café\n\nnaïve résumé — ünïcödé 🧠\n";
  await writeText(dir.path, "u.md", text);
  const doc = await runJson<DocumentRecord>(["remember", "u.md", "--json"], { dataDir: dir.path });
  assert.equal(doc.checksum_sha256, await sha256Hex(text));
  assert.equal(doc.byte_size, new TextEncoder().encode(text).length);
});

Deno.test("remember - reads the document from stdin and honours --title, --path and --tag", async () => {
  await using dir = await tempDir();
  const doc = await runJson<DocumentRecord>(
    [
      "remember",
      "-",
      "--title",
      "Shopping list",
      "--path",
      "/memory/project/shop.md",
      "--tag",
      "home",
      "--json",
    ],
    { dataDir: dir.path, stdin: "milk, eggs and bread\n" },
  );
  assert.equal(doc.title, "Shopping list");
  assert.equal(doc.path, "/memory/project/shop.md");
  assert.deepEqual(doc.metadata, { tags: "home" });
  const found = await runJson<{ hits: { path: string }[] }>(
    ["search", "eggs", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(found.hits.map((h) => h.path), ["/memory/project/shop.md"]);
});

Deno.test("remember without --json prints one line with the path, id, version and size", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plan.md", NOTE);
  const r = await runEngram(["remember", "plan.md"], { dataDir: dir.path });
  assertOk(r);
  assert.match(
    r.stdout,
    /^remembered \/memory\/global\/running-plan\.md \(id doc_\S+, version 1, \d+ bytes\)\n$/,
  );
});

Deno.test("remember the same file twice: version 1 both times and the very same record", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plan.md", NOTE);
  const first = await runJson<DocumentRecord>(["remember", "plan.md", "--json"], {
    dataDir: dir.path,
  });
  const second = await runJson<DocumentRecord>(["remember", "plan.md", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(first.version, 1);
  assert.deepEqual(second, first);
});

Deno.test("remember changed content at the same path makes version 2 of the same document", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plan.md", NOTE);
  const first = await runJson<DocumentRecord>(["remember", "plan.md", "--json"], {
    dataDir: dir.path,
  });
  await writeText(dir.path, "plan.md", NOTE + "\nSaturday: rest.\n");
  const second = await runJson<DocumentRecord>(["remember", "plan.md", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(second.id, first.id);
  assert.equal(second.version, 2);
  assert.notEqual(second.checksum_sha256, first.checksum_sha256);
});

Deno.test("remember --brain stores the document in that brain", async () => {
  await using dir = await tempDir();
  const brain = await runJson<{ id: string }>(["brains", "create", "Work", "--json"], {
    dataDir: dir.path,
  });
  const doc = await runJson<DocumentRecord>(
    ["remember", "-", "--brain", "work", "--json"],
    { dataDir: dir.path, stdin: "# Standup\n\nship the parser\n" },
  );
  assert.equal(doc.brain_id, brain.id);
  const elsewhere = await runJson<{ hits: unknown[] }>(["search", "parser", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(elsewhere.hits.length, 0, "the default brain must not see the work brain's note");
});

Deno.test("remember a missing file exits 1 naming the file", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "no-such-note.md"], { dataDir: dir.path });
  assertFails(r, 1, "no-such-note.md");
  assert.match(r.stderr, /does not exist/);
});

Deno.test("remember a directory fails with a clear message instead of reading it", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/notes`);
  const r = await runEngram(["remember", "notes"], { dataDir: dir.path });
  assertFails(r, 2, /notes is a directory/);
});

Deno.test("remember a file that is not UTF-8 fails with a clear message", async () => {
  await using dir = await tempDir();
  await Deno.writeFile(`${dir.path}/blob.md`, new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0xc3, 0x28]));
  const r = await runEngram(["remember", "blob.md"], { dataDir: dir.path });
  assertFails(r, 2, /blob\.md is not valid UTF-8 text/);
});

Deno.test("remember - with empty stdin is a usage error saying it is empty", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "" });
  assertFails(r, 2, "stdin is empty: there is nothing to remember");
});

Deno.test("remember --title longer than 512 characters exits 2 naming title", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "-", "--title", "t".repeat(513)], {
    dataDir: dir.path,
    stdin: "body\n",
  });
  assertFails(r, 2, /\btitle\b/);
});

Deno.test("remember --title of exactly 512 characters is accepted", async () => {
  await using dir = await tempDir();
  const doc = await runJson<DocumentRecord>(
    ["remember", "-", "--title", "t".repeat(512), "--json"],
    { dataDir: dir.path, stdin: "body\n" },
  );
  assert.equal(doc.title.length, 512);
});

Deno.test("remember with more than 64 --tag options exits 2 naming tags", async () => {
  await using dir = await tempDir();
  const tags = Array.from({ length: 65 }, (_, i) => ["--tag", `t${i}`]).flat();
  const r = await runEngram(["remember", "-", ...tags], { dataDir: dir.path, stdin: "body\n" });
  assertFails(
    r,
    2,
    /: tags \(front matter and --tag\): Too big: expected array to have <=64 items/,
  );
});

Deno.test("remember with exactly 64 tags stores all of them", async () => {
  await using dir = await tempDir();
  const names = Array.from({ length: 64 }, (_, i) => `t${i}`);
  const doc = await runJson<DocumentRecord>(
    ["remember", "-", ...names.flatMap((t) => ["--tag", t]), "--json"],
    { dataDir: dir.path, stdin: "body\n" },
  );
  assert.equal(doc.metadata.tags, names.join(","));
});

Deno.test("remember --tag containing a comma exits 2", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "-", "--tag", "a,b"], {
    dataDir: dir.path,
    stdin: "body\n",
  });
  assertFails(r, 2, /comma/);
});

Deno.test("remember --path longer than 1024 characters exits 2 naming path", async () => {
  await using dir = await tempDir();
  const r = await runEngram(
    ["remember", "-", "--path", `/memory/global/${"p".repeat(1020)}.md`],
    { dataDir: dir.path, stdin: "body\n" },
  );
  assertFails(r, 2, /\bpath\b/);
});

Deno.test("remember --brain naming an unknown brain exits 1 and says how to list brains", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember", "-", "--brain", "x"], {
    dataDir: dir.path,
    stdin: "body\n",
  });
  assertFails(r, 1, `brain "x" not found; list brains with: engram brains list`);
});

Deno.test("remember with no FILE argument is a usage error", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["remember"], { dataDir: dir.path });
  assertFails(r, 2, /missing argument[\s\S]*see: engram remember --help/);
});

Deno.test("remember with two FILE arguments is a usage error naming the extra one", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "a.md", "a\n");
  await writeText(dir.path, "b.md", "b\n");
  const r = await runEngram(["remember", "a.md", "b.md"], { dataDir: dir.path });
  assertFails(r, 2, /unexpected argument "b\.md"/);
});
