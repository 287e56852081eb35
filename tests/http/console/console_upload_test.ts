/**
 * Uploads through a real `engram serve`: past `server.max_body_bytes` up to 25 MiB on the upload
 * path only, each file a background job followed to the end on `/console/events`.
 */
import assert from "node:assert/strict";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { ensureDefaultBrain } from "../../../src/core/brains.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { uploadPath } from "../../../src/cli/console_parts.ts";
import { tempDir } from "../../helpers.ts";
import { spawnServe, sseReader } from "../http_helpers.ts";
import { apiErrorOf, signedIn } from "./_console.ts";

async function tokens(dir: string) {
  const storage = openSqliteStorage(`${dir}/engram.db`);
  try {
    await ensureDefaultBrain(storage.brains);
    const t = new TokenService(storage);
    return {
      write: (await t.create({ client: "alice", tier: "write" })).token,
      read: (await t.create({ client: "rita", tier: "read" })).token,
    };
  } finally {
    storage.close();
  }
}

Deno.test("console upload: past max_body_bytes on its path only, up to 25 MiB, as a job", async () => {
  await using dir = await tempDir("engram-console-upload-");
  const t = await tokens(dir.path);
  await Deno.mkdir(`${dir.path}/xdg-config/engram`, { recursive: true });
  await Deno.writeTextFile(
    `${dir.path}/xdg-config/engram/engram.yaml`,
    "server:\n  max_body_bytes: 1024\n",
  );
  const serve = await spawnServe(dir.path, []);
  try {
    const c = await signedIn(serve.url, t.write);
    const note = `# Big note\n\n${"Lettuce grows fast. ".repeat(400)}\n`;
    assert.ok(note.length > 1024);
    const up = await c.write("POST", "/console/api/b/default/upload?name=big.md", undefined, {
      "Content-Type": "application/octet-stream",
    });
    await up.body?.cancel();
    // An empty body is an empty file: stored at once, no job needed.
    const posted = await fetch(`${serve.url}/console/api/b/default/upload?name=garden/big.md`, {
      method: "POST",
      headers: { cookie: c.cookie, Origin: serve.url, "X-Engram-CSRF": c.csrf },
      body: note,
    });
    const r = await posted.json();
    assert.equal(posted.status, 200, JSON.stringify(r));
    assert.equal(r.status, "queued");
    assert.equal(r.path, "/ingest/upload/garden/big.md");
    const events = await c.get(`/console/events?job=${r.job_id}`);
    assert.equal(events.headers.get("content-type"), "text/event-stream");
    const reader = sseReader(events.body!);
    let last: Record<string, unknown> = {};
    for (;;) {
      const e = await reader.next();
      if (e.event === "end") break;
      last = JSON.parse(e.data);
    }
    await reader.cancel();
    assert.equal(last.status, "completed", JSON.stringify(last));
    assert.match(
      String((last.result as Record<string, unknown>).href),
      /^\/console\/b\/default\/doc\/doc_/,
    );

    const tooBig = await fetch(`${serve.url}/console/api/b/default/upload?name=huge.txt`, {
      method: "POST",
      headers: { cookie: c.cookie, Origin: serve.url, "X-Engram-CSRF": c.csrf },
      body: new Uint8Array(25 * 1024 * 1024 + 1),
    });
    const refused = await apiErrorOf(tooBig);
    assert.equal(refused.status, 413);
    assert.match(refused.message, /over 25 MiB/);
    // Everywhere else the configured limit holds: an edit as large as the note is refused.
    const edit = await apiErrorOf(
      await c.write("PATCH", `/console/api/b/default/doc/${r.document_id}`, { content: note }),
    );
    assert.equal(edit.status, 413);
    const unknown = await apiErrorOf(await c.get("/console/events?job=job_nope"));
    assert.equal(unknown.status, 404);
    assert.match(unknown.message, /job job_nope not found/);
    const format = await apiErrorOf(
      await c.write("POST", "/console/api/b/default/upload?name=photo.heic", undefined, {
        "Content-Type": "application/octet-stream",
      }),
    );
    assert.equal(format.status, 400);
    assert.match(format.message, /cannot tell the format of/);

    const reader2 = await signedIn(serve.url, t.read);
    const readOnly = await apiErrorOf(
      await reader2.write("POST", "/console/api/b/default/upload?name=x.md", undefined, {
        "Content-Type": "application/octet-stream",
      }),
    );
    assert.equal(readOnly.status, 403);
    assert.match(readOnly.message, /console_upload needs tier write/);
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.child.stdout.cancel();
    await serve.stderr();
  }
  // Each upload's file went once its job was done.
  const left = [];
  try {
    for await (const e of Deno.readDir(`${dir.path}/uploads`)) left.push(e.name);
  } catch {
    // No upload folder at all is fine too.
  }
  assert.deepEqual(left, []);
});

Deno.test("console upload: a name keeps its folders, never leaves the upload folder", () => {
  assert.deepEqual(uploadPath("notes/a.md"), ["notes", "a.md"]);
  assert.deepEqual(uploadPath("../../etc/passwd.md"), ["etc", "passwd.md"]);
  assert.deepEqual(uploadPath("C:\\x\\y.md"), ["C:", "x", "y.md"]);
  assert.throws(
    () => uploadPath("../.."),
    /cannot store an upload named "..\/.."; give a file name/,
  );
});
