import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { readCheckedFile } from "../../src/ingest/checked_read.ts";
import { checkFile } from "../../src/ingest/file_access.ts";
import {
  ingestFile,
  type IngestFileJobPayload,
  runIngestFileJob,
} from "../../src/ingest/ingest_file.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

const MARKER = "quokkasecretmarker";
/** Tries of the swap race: on the old code 1 to 100 of every 500 stored the outside file. */
const TRIES = 1000;

/** `vault/` (the root) holding note.md and dir/note.md, and `outside/` holding the secret. */
async function layout() {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const root = `${base}/vault`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.mkdir(`${outside}/dir`, { recursive: true });
  await Deno.writeTextFile(`${root}/note.md`, "# Note\n\nharmless text\n");
  await Deno.writeTextFile(`${root}/dir/note.md`, "# Deep\n\nharmless text\n");
  await Deno.writeTextFile(`${outside}/secret.md`, `# Secret\n\n${MARKER}\n`);
  await Deno.writeTextFile(`${outside}/dir/note.md`, `# Secret\n\n${MARKER}\n`);
  return { base, root, outside, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

function isRefusal(err: unknown, codes: string[]): boolean {
  return err instanceof EngramError && codes.includes(err.code);
}

/** Replaces `path` atomically (rename) with a link to `target`. */
async function swapForLink(path: string, target: string): Promise<void> {
  await Deno.symlink(target, `${path}.swap`);
  await Deno.rename(`${path}.swap`, path);
}

/** The database and its WAL, as text: a stored secret would show up in one of them. */
async function databaseText(base: string): Promise<string> {
  let text = "";
  for (const f of ["engram.db", "engram.db-wal"]) {
    text += await Deno.readTextFile(`${base}/${f}`).catch(() => "");
  }
  return text;
}

Deno.test("readCheckedFile reads the checked file", async () => {
  await using l = await layout();
  const file = await checkFile(`${l.root}/note.md`, { roots: [l.root], cwd: l.base });
  const bytes = await readCheckedFile(file, "note.md");
  assert.equal(new TextDecoder().decode(bytes), "# Note\n\nharmless text\n");
});

Deno.test("readCheckedFile refuses a file swapped for a link after the check", async () => {
  await using l = await layout();
  const file = await checkFile(`${l.root}/note.md`, { roots: [l.root], cwd: l.base });
  await swapForLink(`${l.root}/note.md`, `${l.outside}/secret.md`);
  await assert.rejects(() => readCheckedFile(file, "note.md"), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "forbidden");
    assert.equal(
      err.message,
      `note.md changed while it was being read (${l.root}/note.md is no longer the file that was checked); try again`,
    );
    return true;
  });
});

Deno.test("readCheckedFile refuses a folder on the path swapped for a link after the check", async () => {
  await using l = await layout();
  const file = await checkFile(`${l.root}/dir/note.md`, { roots: [l.root], cwd: l.base });
  await Deno.rename(`${l.root}/dir`, `${l.base}/old-dir`);
  await Deno.symlink(`${l.outside}/dir`, `${l.root}/dir`);
  await assert.rejects(
    () => readCheckedFile(file, "dir/note.md"),
    (err: unknown) => isRefusal(err, ["forbidden"]) && /changed while/.test(String(err)),
  );
});

Deno.test("readCheckedFile: a file removed after the check is not_found", async () => {
  await using l = await layout();
  const file = await checkFile(`${l.root}/note.md`, { roots: [l.root], cwd: l.base });
  await Deno.remove(`${l.root}/note.md`);
  await assert.rejects(
    () => readCheckedFile(file, "note.md"),
    (err: unknown) => isRefusal(err, ["not_found"]),
  );
});

/**
 * The issue's attack: another process swaps the file under the root for a link to a file outside
 * and back, as fast as it can, while the file is ingested again and again. A separate process
 * (not a task of this event loop) so the swap can land between any two steps of ingestFile.
 */
Deno.test("ingestFile never stores a file swapped in for a link between check and read", async () => {
  await using l = await layout();
  const target = `${l.root}/note.md`;
  const swapper = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const [target, secret] = ${JSON.stringify([target, `${l.outside}/secret.md`])};
       const plain = new TextEncoder().encode("# Note\\n\\nharmless text\\n");
       for (let i = 0; ; i++) {
         Deno.symlinkSync(secret, target + ".link");
         Deno.renameSync(target + ".link", target);
         Deno.writeFileSync(target + ".plain", plain);
         Deno.renameSync(target + ".plain", target);
         if (i === 0) console.log("swapping");
       }`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = swapper.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stored: string[] = [];
  const unexpected: string[] = [];
  let refused = 0;
  {
    using svc = await openService(l.base);
    try {
      // Start only once the swapping runs, so every try races it.
      assert.match((await lines.read()).value ?? "", /swapping/);
      for (let i = 0; i < TRIES; i++) {
        try {
          const r = await ingestFile(svc.service, ADMIN, {
            path: target,
            roots: [l.root],
            cwd: l.base,
          });
          stored.push((await svc.service.get(ADMIN, { id: r.document_id })).content);
        } catch (err) {
          if (isRefusal(err, ["forbidden", "not_found"])) refused++;
          else unexpected.push(String(err));
          assert.ok(!String(err).includes(MARKER));
        }
      }
    } finally {
      swapper.kill();
      await swapper.status;
      await lines.cancel();
    }
  }
  const leaked = stored.filter((c) => c.includes(MARKER)).length;
  assert.equal(leaked, 0, `the outside file was stored ${leaked} times in ${TRIES} tries`);
  assert.ok(
    !(await databaseText(l.base)).includes(MARKER),
    "the secret never reaches the database",
  );
  assert.deepEqual(unexpected, [], "every refusal is forbidden or not_found");
  // The race was really run: some tries met the link and were refused.
  assert.ok(refused > 0, "no try met the swapped link; the race did not run");
});

Deno.test("a queued ingestion checks again at run time: a file swapped for a link is refused", async () => {
  await using l = await layout();
  using svc = await openService(l.base);
  const target = `${l.root}/note.md`;
  const queued = await ingestFile(svc.service, ADMIN, {
    path: target,
    roots: [l.root],
    cwd: l.base,
    queue: { bytes: 1, jobs: svc.storage.jobs },
  });
  assert.equal(queued.status, "queued");
  const job = (await svc.storage.jobs.getJob(queued.job_id!))!;
  const payload = job.payload as unknown as IngestFileJobPayload;
  assert.equal(payload.root, l.root);

  await swapForLink(target, `${l.outside}/secret.md`);
  await assert.rejects(
    () => runIngestFileJob(svc.service, ADMIN, { brain_id: job.brain_id, payload }),
    (err: unknown) => {
      assert.ok(isRefusal(err, ["forbidden"]), String(err));
      assert.match(
        (err as Error).message,
        new RegExp(
          `^${target} \\(it resolves to ${l.outside}/secret\\.md\\) is outside the allowed file roots \\(${l.root}\\); `,
        ),
      );
      return true;
    },
  );
  assert.ok(!(await databaseText(l.base)).includes(MARKER));
});
