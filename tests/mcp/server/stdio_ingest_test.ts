import assert from "node:assert/strict";
import { newId } from "../../../src/core/ids.ts";
import type { IngestFileJobPayload } from "../../../src/ingest/ingest_file.ts";
import { openDatabase } from "../../../src/storage/sqlite/database.ts";
import type { Client } from "../../../src/mcp/sdk_client.ts";
import { call, callErr, callOk, connectStdio, openService, tempDir } from "../../helpers.ts";
import { copyFixture, minimalPdf, sha256Hex } from "../../fixtures/ingest/fixtures.ts";

interface IngestResponse {
  status?: "completed" | "queued";
  job_id?: string;
  document_id: string;
  path: string;
  hash: string;
  chunk_count: number;
  embedded_count: number;
  duration_ms: number;
  reused: boolean;
}

interface Job {
  id: string;
  kind: string;
  status: "queued" | "running" | "completed" | "failed";
  attempts: number;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

const RESPONSE_KEYS = [
  "chunk_count",
  "document_id",
  "duration_ms",
  "embedded_count",
  "hash",
  "path",
  "reused",
  "status",
];

/**
 * A data dir holding `notes/` (the allowed root), a sibling `outside/` and `engram.yaml` allowing
 * `notes/` (plus `extra` config lines). Paths are real so messages compare exactly.
 */
async function workspace(extra = "") {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const root = `${base}/notes`;
  await Deno.mkdir(`${root}/sub`, { recursive: true });
  await Deno.mkdir(`${base}/outside`);
  const config = `${base}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    `mcp:\n  allowed_file_roots: [${JSON.stringify(root)}]\n${extra}`,
  );
  return { base, root, config, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

async function stats(client: Client): Promise<{ documents: number; versions: number }> {
  return await callOk(client, "memory_stats", {});
}

/** The distinct document paths a search hits (a long document has several chunks). */
async function searchPaths(client: Client, query: string): Promise<string[]> {
  const r = await callOk<{ hits: { path: string }[] }>(client, "memory_search", { query });
  return [...new Set(r.hits.map((h) => h.path))];
}

function assertShape(r: IngestResponse): void {
  assert.match(r.document_id, /^doc_/);
  assert.match(r.hash, /^[0-9a-f]{64}$/);
  assert.equal(r.embedded_count, 0);
  assert.ok(Number.isInteger(r.duration_ms) && r.duration_ms >= 0, String(r.duration_ms));
  assert.ok(Number.isInteger(r.chunk_count) && r.chunk_count >= 0);
}

Deno.test("stdio memory_ingest_file: formats, reuse, versions and every refusal", async (t) => {
  await using w = await workspace();
  const { root, base } = w;
  await using s = await connectStdio(base, { args: ["--tier", "write", "--config", w.config] });
  const garden = `${root}/sub/garden.md`;
  await Deno.writeTextFile(
    garden,
    "---\ntitle: Garden log\ntags: [garden, spring]\nbed: north\n---\n" +
      "# Tomatoes\n\nPlanted San Marzano seedlings in the north bed.\n",
  );
  let gardenId = "";

  await t.step(
    "markdown with front matter: title, tags, metadata, exact IngestResponse",
    async () => {
      const raw = await call(s.client, "memory_ingest_file", { path: garden });
      assert.equal(raw.isError, undefined);
      const r = raw.structuredContent as unknown as IngestResponse;
      assert.deepEqual(Object.keys(r).sort(), RESPONSE_KEYS);
      assertShape(r);
      assert.equal(r.status, "completed");
      assert.equal(r.path, "/ingest/notes/sub/garden.md");
      assert.equal(r.hash, await sha256Hex(await Deno.readFile(garden)));
      assert.ok(r.chunk_count > 0);
      assert.equal(r.reused, false);
      assert.equal(
        (raw.content[0] as { text: string }).text,
        `Ingested /ingest/notes/sub/garden.md (document ${r.document_id}, ${r.chunk_count} chunks, ${r.duration_ms} ms)`,
      );
      gardenId = r.document_id;
      const doc = await callOk<Record<string, unknown>>(s.client, "memory_get", { path: r.path });
      assert.equal(doc.id, r.document_id);
      assert.equal(doc.title, "Garden log");
      assert.equal(doc.source, "ingest");
      assert.equal(doc.version, 1);
      assert.equal(doc.content, "# Tomatoes\n\nPlanted San Marzano seedlings in the north bed.\n");
      assert.deepEqual(doc.metadata, {
        bed: "north",
        source_format: "markdown",
        source_file: garden,
        source_hash: r.hash,
        tags: "garden,spring",
      });
    },
  );

  await t.step(
    "re-ingesting the unchanged file is reused: no new version, one timeline entry",
    async () => {
      const raw = await call(s.client, "memory_ingest_file", { path: "notes/sub/garden.md" });
      const r = raw.structuredContent as unknown as IngestResponse;
      assert.equal(r.reused, true);
      assert.equal(r.status, "completed");
      assert.equal(r.document_id, gardenId);
      assert.match(
        (raw.content[0] as { text: string }).text,
        /^Unchanged: \/ingest\/notes\/sub\/garden\.md/,
      );
      const doc = await callOk<{ version: number }>(s.client, "memory_get", { id: gardenId });
      assert.equal(doc.version, 1);
      const tl = await callOk<{ items: { path: string }[] }>(s.client, "memory_timeline", {});
      assert.equal(tl.items.filter((i) => i.path === "/ingest/notes/sub/garden.md").length, 1);
    },
  );

  await t.step("a changed file becomes version 2 of the same document", async () => {
    await Deno.writeTextFile(garden, "# Tomatoes\n\nFirst fruit on the San Marzano plants.\n");
    const r = await callOk<IngestResponse>(s.client, "memory_ingest_file", { path: garden });
    assert.equal(r.reused, false);
    assert.equal(r.document_id, gardenId);
    const doc = await callOk<{ version: number; content: string }>(s.client, "memory_get", {
      id: gardenId,
    });
    assert.equal(doc.version, 2);
    assert.match(doc.content, /First fruit/);
  });

  await t.step(
    "a link inside the root to a file inside is allowed (stored at the target's path)",
    async () => {
      await Deno.symlink(garden, `${root}/alias.md`);
      const r = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
        path: `${root}/alias.md`,
      });
      assert.equal(r.path, "/ingest/notes/sub/garden.md");
      assert.equal(r.reused, true);
    },
  );

  await t.step("text, pdf and a json transcript are stored and searchable", async () => {
    await Deno.writeTextFile(`${root}/todo.txt`, "Renew the passport before the kayak trip.\n");
    await Deno.writeFile(`${root}/census.pdf`, minimalPdf(["Quarterly zebrafish census"]));
    await copyFixture("chat_array.json", root, "hike.json");
    const txt = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
      path: `${root}/todo.txt`,
    });
    const pdf = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
      path: `${root}/census.pdf`,
    });
    const json = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
      path: `${root}/hike.json`,
    });
    for (const r of [txt, pdf, json]) {
      assertShape(r);
      assert.ok(r.chunk_count > 0);
    }
    assert.deepEqual(await searchPaths(s.client, "passport"), ["/ingest/notes/todo.txt"]);
    assert.deepEqual(await searchPaths(s.client, "zebrafish"), ["/ingest/notes/census.pdf"]);
    const chat = await callOk<{ content: string; title: string }>(s.client, "memory_get", {
      path: json.path,
    });
    assert.equal(chat.title, "Transcript: hike.json");
    assert.match(chat.content, /^\*\*user:\*\* Which trail did we pick for the Saturday hike\?$/m);
    assert.match(chat.content, /^\*\*assistant:\*\* The Larch Valley loop/m);
    assert.deepEqual(await searchPaths(s.client, "crampons"), ["/ingest/notes/hike.json"]);
  });

  await t.step("an unknown extension needs `as`; `as: text` overrides the extension", async () => {
    await Deno.writeTextFile(`${root}/recipe.cook`, "Knead the dough for ten minutes.\n");
    const before = await stats(s.client);
    const e = await callErr(s.client, "memory_ingest_file", { path: `${root}/recipe.cook` });
    assert.equal(e.code, "invalid_argument");
    assert.equal(
      e.message,
      `cannot tell the format of ${root}/recipe.cook from its extension; pass as: markdown, text, pdf or json`,
    );
    assert.equal((await stats(s.client)).documents, before.documents);
    const r = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
      path: `${root}/recipe.cook`,
      as: "text",
    });
    assert.equal(r.path, "/ingest/notes/recipe.cook");
    const doc = await callOk<{ content_type: string }>(s.client, "memory_get", { path: r.path });
    assert.equal(doc.content_type, "text/plain");
  });

  // Every refusal: its code, its message, and nothing half-written left behind.
  const refusals: {
    name: string;
    prepare?: () => Promise<void>;
    args: () => Record<string, unknown>;
    code: string;
    message: string | RegExp;
  }[] = [
    {
      name: "a missing file → not_found",
      args: () => ({ path: `${root}/missing.md` }),
      code: "not_found",
      message: `file ${root}/missing.md does not exist (or is a broken link)`,
    },
    {
      name: "a directory → invalid_argument",
      args: () => ({ path: `${root}/sub` }),
      code: "invalid_argument",
      message: `${root}/sub is a directory; give one file (engram ingest DIR walks a whole folder)`,
    },
    {
      name: "a file over 25 MiB → file_too_large",
      prepare: async () => {
        await Deno.writeFile(`${root}/huge.log`, new Uint8Array());
        await Deno.truncate(`${root}/huge.log`, 25 * 1024 * 1024 + 1);
      },
      args: () => ({ path: `${root}/huge.log` }),
      code: "file_too_large",
      message:
        `${root}/huge.log is 25.0 MiB; the limit is 25 MiB — split it or ingest a smaller export`,
    },
    {
      name: "a path outside the roots → forbidden",
      prepare: () => Deno.writeTextFile(`${base}/outside/secret.md`, "# Secret\n\nhunter2\n"),
      args: () => ({ path: `${base}/outside/secret.md` }),
      code: "forbidden",
      message:
        `${base}/outside/secret.md is outside the allowed file roots (${root}); to allow it, add the folder holding ${base}/outside/secret.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    },
    {
      name: "a `..` escape → forbidden",
      args: () => ({ path: `${root}/../outside/secret.md` }),
      code: "forbidden",
      message:
        `${root}/../outside/secret.md (it resolves to ${base}/outside/secret.md) is outside the allowed file roots (${root}); to allow it, add the folder holding ${root}/../outside/secret.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    },
    {
      name: "a link inside the root pointing outside → forbidden, naming the real path",
      prepare: () => Deno.symlink(`${base}/outside/secret.md`, `${root}/shortcut.md`),
      args: () => ({ path: `${root}/shortcut.md` }),
      code: "forbidden",
      message:
        `${root}/shortcut.md (it resolves to ${base}/outside/secret.md) is outside the allowed file roots (${root}); to allow it, add the folder holding ${root}/shortcut.md to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    },
    {
      name: "a missing file outside the roots → forbidden, not not_found",
      args: () => ({ path: `${base}/outside/nothing-here.md` }),
      code: "forbidden",
      message: /^\S+\/outside\/nothing-here\.md is outside the allowed file roots/,
    },
    {
      name: "a corrupt PDF → invalid_argument",
      prepare: async () => void await copyFixture("corrupt.pdf", root),
      args: () => ({ path: `${root}/corrupt.pdf` }),
      code: "invalid_argument",
      message: new RegExp(`^${root}/corrupt\\.pdf is not a readable PDF: `),
    },
    {
      name: "a binary file named .md → invalid_argument",
      prepare: () =>
        Deno.writeFile(`${root}/photo.md`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1])),
      args: () => ({ path: `${root}/photo.md` }),
      code: "invalid_argument",
      message: `${root}/photo.md looks binary (it contains NUL bytes), not text`,
    },
    {
      name: "invalid JSON → invalid_argument",
      prepare: () => Deno.writeTextFile(`${root}/broken.json`, '[{"role": "user", "content": '),
      args: () => ({ path: `${root}/broken.json` }),
      code: "invalid_argument",
      message: new RegExp(`^${root}/broken\\.json is not valid JSON: \\S`),
    },
    {
      name: "an empty markdown file → invalid_argument",
      prepare: () => Deno.writeTextFile(`${root}/empty.md`, "\n\n"),
      args: () => ({ path: `${root}/empty.md` }),
      code: "invalid_argument",
      message: `${root}/empty.md is empty; nothing to ingest`,
    },
    {
      name: "an unknown `as` is rejected by the schema",
      args: () => ({ path: garden, as: "docx" }),
      code: "invalid_argument",
      message: /^invalid arguments for memory_ingest_file: as: .*"markdown"\|"text"\|"pdf"\|"json"/,
    },
  ];
  for (const c of refusals) {
    await t.step(c.name, async () => {
      await c.prepare?.();
      const before = await stats(s.client);
      const e = await callErr(s.client, "memory_ingest_file", c.args());
      assert.equal(e.code, c.code, e.message);
      if (typeof c.message === "string") assert.equal(e.message, c.message);
      else assert.match(e.message, c.message);
      assert.equal(e.text, `${e.code}: ${e.message}`);
      assert.equal(e.retryable, false);
      assert.deepEqual(await stats(s.client), before, "nothing half-written stays");
    });
  }

  await t.step("memory_job for an unknown id → not_found", async () => {
    const e = await callErr(s.client, "memory_job", { job_id: "job_nope" });
    assert.equal(e.code, "not_found");
    assert.equal(e.message, "job job_nope not found");
  });
});

Deno.test("stdio memory_ingest_file with no allowed_file_roots is forbidden and says how to configure", async () => {
  await using dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  await Deno.writeTextFile(`${base}/note.md`, "# Note\n");
  await using s = await connectStdio(base, { args: ["--tier", "write"] });
  for (const path of [`${base}/note.md`, "note.md", `${base}/missing.md`]) {
    const e = await callErr(s.client, "memory_ingest_file", { path });
    assert.equal(e.code, "forbidden");
    assert.equal(
      e.message,
      `reading files is off: no file roots are allowed in this session; to allow it, add the folder holding ${path} to mcp.allowed_file_roots in the config, or have the MCP client share that folder as a root (stdio sessions only)`,
    );
  }
  assert.equal((await stats(s.client)).documents, 0);
});

Deno.test("stdio: a file over queue_bytes is queued, and memory_job follows it to completion", async () => {
  await using w = await workspace("ingest:\n  queue_bytes: 1000\n");
  const { root } = w;
  await using s = await connectStdio(w.base, { args: ["--tier", "write", "--config", w.config] });
  const big = `${root}/big.md`;
  await Deno.writeTextFile(
    big,
    "# Quokka census\n\n" + "Quokkas counted on Rottnest. ".repeat(200),
  );

  const raw = await call(s.client, "memory_ingest_file", { path: big });
  const queued = raw.structuredContent as unknown as IngestResponse;
  assert.deepEqual(Object.keys(queued).sort(), [...RESPONSE_KEYS, "job_id"].sort());
  assertShape(queued);
  assert.equal(queued.status, "queued");
  assert.match(queued.job_id!, /^job_/);
  assert.equal(queued.path, "/ingest/notes/big.md");
  assert.equal(queued.hash, await sha256Hex(await Deno.readFile(big)));
  assert.equal(queued.chunk_count, 0);
  assert.equal(queued.reused, false);
  assert.equal(
    (raw.content[0] as { text: string }).text,
    `Queued /ingest/notes/big.md as job ${queued.job_id}; check it with memory_job`,
  );

  const job = await callOk<Job & Record<string, unknown>>(s.client, "memory_job", {
    job_id: queued.job_id,
    wait_ms: 30_000,
  });
  assert.equal(job.id, queued.job_id);
  assert.equal(job.kind, "ingest_file");
  assert.equal(job.status, "completed");
  assert.equal(job.attempts, 1);
  assert.equal(job.error, null);
  assert.equal(typeof job.finished_at, "string");
  assert.equal(job.payload, undefined, "the payload (server paths) is not shown");
  assert.equal(job.brain_id, undefined);
  const result = job.result as unknown as IngestResponse;
  assert.equal(result.document_id, queued.document_id);
  assert.equal(result.path, "/ingest/notes/big.md");
  assert.equal(result.hash, queued.hash);
  assert.equal(result.status, "completed");
  assert.ok(result.chunk_count > 0);

  assert.deepEqual(await searchPaths(s.client, "quokkas rottnest"), ["/ingest/notes/big.md"]);
  const doc = await callOk<{ id: string; version: number }>(s.client, "memory_get", {
    path: "/ingest/notes/big.md",
  });
  assert.equal(doc.id, queued.document_id);
  assert.equal(doc.version, 1);

  // Unchanged, the big file is reused at once instead of being queued again.
  const again = await callOk<IngestResponse>(s.client, "memory_ingest_file", { path: big });
  assert.equal(again.status, "completed");
  assert.equal(again.reused, true);
  assert.equal(again.document_id, queued.document_id);

  // A file under queue_bytes is ingested at once.
  await Deno.writeTextFile(`${root}/small.md`, "# Small\n\nA wallaby note.\n");
  const small = await callOk<IngestResponse>(s.client, "memory_ingest_file", {
    path: `${root}/small.md`,
  });
  assert.equal(small.status, "completed");
  assert.equal(small.job_id, undefined);
  assert.ok(small.chunk_count > 0);

  const e = await callErr(s.client, "memory_job", { job_id: "job_00000000000000000000000000" });
  assert.equal(e.code, "not_found");
  assert.equal(e.message, "job job_00000000000000000000000000 not found");
});

Deno.test("stdio: jobs survive a restart — queued, orphaned, changed, vanished and hopeless ones all end", async () => {
  await using w = await workspace();
  const { root } = w;
  const files: Record<string, string> = {
    "queued.md": "# Queued\n\nThe narwhal tusk measurements.\n",
    "orphan.md": "# Orphan\n\nThe axolotl tank temperatures.\n",
    "changed.md": "# Changed\n\nOriginal text.\n",
    "hopeless.md": "# Hopeless\n\nThe pangolin scales.\n",
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${root}/${name}`, text);
  }

  const ids: Record<string, { job: string; doc: string }> = {};
  {
    using svc = await openService(w.base);
    const brain = (await svc.storage.brains.listBrains())[0];
    for (const name of ["queued.md", "orphan.md", "changed.md", "vanished.md", "hopeless.md"]) {
      const real = `${root}/${name}`;
      const bytes = name === "vanished.md"
        ? new TextEncoder().encode("# Vanished\n")
        : await Deno.readFile(real);
      const payload: IngestFileJobPayload = {
        real_path: real,
        format: "markdown",
        doc_path: `/ingest/notes/${name}`,
        document_id: newId("doc"),
        hash: await sha256Hex(bytes),
        name: real,
      };
      const job = await svc.storage.jobs.enqueueJob({
        id: newId("job"),
        kind: "ingest_file",
        brain_id: brain.id,
        payload: payload as unknown as Record<string, unknown>,
      });
      ids[name] = { job: job.id, doc: payload.document_id };
    }
  }
  // The process that queued them is gone; afterwards one file changes, and two jobs look like
  // their process died mid-run (an expired lease), one of them on its last attempt.
  await Deno.writeTextFile(`${root}/changed.md`, "# Changed\n\nEdited after it was queued.\n");
  const db = openDatabase(`${w.base}/engram.db`);
  try {
    const past = new Date(Date.now() - 60_000).toISOString();
    const orphaned = db.prepare(
      "UPDATE jobs SET status = 'running', lease_until = ?, attempts = ? WHERE id = ?",
    );
    orphaned.run(past, 1, ids["orphan.md"].job);
    orphaned.run(past, 3, ids["hopeless.md"].job);
  } finally {
    db.close();
  }

  await using s = await connectStdio(w.base, { args: ["--tier", "write", "--config", w.config] });
  const wait = (name: string) =>
    callOk<Job>(s.client, "memory_job", { job_id: ids[name].job, wait_ms: 30_000 });

  const queued = await wait("queued.md");
  assert.equal(queued.status, "completed");
  assert.equal(queued.attempts, 1);
  assert.equal(queued.result?.document_id, ids["queued.md"].doc);

  const orphan = await wait("orphan.md");
  assert.equal(orphan.status, "completed");
  assert.equal(orphan.attempts, 2);
  assert.equal(orphan.result?.document_id, ids["orphan.md"].doc);

  const changed = await wait("changed.md");
  assert.equal(changed.status, "failed");
  assert.equal(
    changed.error,
    `conflict: file ${root}/changed.md changed after it was queued; ingest it again`,
  );
  assert.equal(changed.result, null);
  assert.equal(typeof changed.finished_at, "string");

  const vanished = await wait("vanished.md");
  assert.equal(vanished.status, "failed");
  assert.match(
    vanished.error!,
    new RegExp(`^not_found: file ${root}/vanished\\.md disappeared before it was ingested: `),
  );

  const hopeless = await wait("hopeless.md");
  assert.equal(hopeless.status, "failed");
  assert.equal(
    hopeless.error,
    "gave up after 3 attempts: the process running it stopped each time",
  );

  assert.deepEqual(await searchPaths(s.client, "narwhal"), ["/ingest/notes/queued.md"]);
  assert.deepEqual(await searchPaths(s.client, "axolotl"), ["/ingest/notes/orphan.md"]);
  const doc = await callOk<{ path: string }>(s.client, "memory_get", { id: ids["queued.md"].doc });
  assert.equal(doc.path, "/ingest/notes/queued.md");
  assert.equal((await stats(s.client)).documents, 2, "only the two good jobs stored anything");
});
