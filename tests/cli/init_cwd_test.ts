import assert from "node:assert/strict";
import { type CliResult, engramEnv, ROOT, tempDir } from "../helpers.ts";
import { exists, spawnDeno, writeText } from "./_util.ts";

/** `deno task --config <clone>/deno.json engram ARGS`, run from `cwd`, as a user running from source. */
async function runFromSource(
  args: string[],
  o: { cwd: string; dataDir: string },
): Promise<CliResult> {
  return await spawnDeno(["task", "-q", "--config", `${ROOT}deno.json`, "engram", ...args], {
    cwd: o.cwd,
    env: engramEnv(o.dataDir),
  });
}

Deno.test("deno task --config <clone>/deno.json engram remember note.md reads note.md (and --data db) where the user stands", async () => {
  await using dir = await tempDir();
  const work = `${dir.path}/work`;
  await writeText(work, "note.md", "# Standing here\n\nThe note in the user's folder.\n");
  const r = await runFromSource(["remember", "note.md", "--data", "db", "--json"], {
    cwd: work,
    dataDir: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { title: string };
  assert.equal(doc.title, "Standing here");
  assert.ok(await exists(`${work}/db/engram.db`), "a relative --data is the user's folder too");
});

Deno.test("run from source: a missing file's message shows the absolute path tried in the user's folder", async () => {
  await using dir = await tempDir();
  const work = `${dir.path}/work`;
  await Deno.mkdir(work);
  const r = await runFromSource(["search", "x", "--config", "missing.yaml"], {
    cwd: work,
    dataDir: dir.path,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.ok(
    r.stderr.includes(`config file ${work}/missing.yaml (from --config) does not exist`),
    r.stderr,
  );
});

Deno.test("run from source: remember and ingest of a missing file name the absolute path tried", async () => {
  await using dir = await tempDir();
  const work = `${dir.path}/work`;
  await Deno.mkdir(work);
  const remember = await runFromSource(["remember", "gone.md"], { cwd: work, dataDir: dir.path });
  assert.equal(remember.code, 1, remember.stderr);
  assert.ok(
    remember.stderr.includes(`file gone.md does not exist (tried ${work}/gone.md)`),
    remember.stderr,
  );
  const ingest = await runFromSource(["ingest", "gone.md", "--json"], {
    cwd: work,
    dataDir: dir.path,
  });
  assert.ok(
    ingest.stdout.includes(`${work}/gone.md`) || ingest.stderr.includes(`${work}/gone.md`),
    ingest.stdout + ingest.stderr,
  );
});
