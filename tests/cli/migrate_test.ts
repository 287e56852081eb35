/**
 * @module `engram migrate` as a user runs it, against a throwaway PostgreSQL cluster: a note
 * remembered on SQLite is found by `engram search` on PostgreSQL after the copy, and back again;
 * each table's count and checksum printed; a progress bar on a terminal; a non-empty target refused
 * until --force; a copy killed with SIGKILL mid-way, or stopped with Ctrl-C, resumes and ends
 * identical; usage errors.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type CliResult, engramCommandArgs, engramEnv, runEngram, tempDir } from "../helpers.ts";
import { startCluster } from "../storage/postgres/_cluster.ts";
import { dumpSqlite } from "../storage/migrate/_dump.ts";
import { fillEveryTable } from "../storage/migrate/_fixture.ts";
import { assertFails, assertOk, HAS_SCRIPT, runEngramOnTerminal, writeText } from "./_util.ts";

const cluster = await startCluster();

/** The rows the copy into `url` has recorded so far (0 before it started). */
async function rowsRecorded(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ t }] = await sql`SELECT to_regclass('engram_migration') AS t`;
    if (t === null) return 0;
    const rows = await sql<{ value: string }[]>`
      SELECT value FROM engram_migration WHERE key LIKE 'table:%'`;
    return rows.reduce((n, r) => n + (JSON.parse(r.value) as { rows: number }).rows, 0);
  } finally {
    await sql.end();
  }
}

/** Starts `engram migrate` in the background, and waits until it has committed some batches. */
async function startCopy(dir: string, args: string[], url: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(["migrate", ...args]),
    cwd: dir,
    env: engramEnv(dir),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Polls the target (the copy's own record of its progress) rather than sleeping a fixed time.
  for (let i = 0; (await rowsRecorded(url)) < 20; i++) {
    assert.ok(i < 3000, "the copy never got under way");
    await new Promise((r) => setTimeout(r, 10));
  }
  return child;
}

/**
 * A copy of the fixture succeeded: exit 0, and on stderr only the warning about the OAuth login it
 * holds sealed (which names the server and the fix).
 */
function assertCopied(r: CliResult): void {
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /^warning: the OAuth logins of upstream Remote were copied sealed with the source's secret key \(ENGRAM_SECRET_KEY, or secret\.key in its data directory\): give every engram using (PostgreSQL 127\.0\.0\.1:\d+\/\w+|SQLite \S+) the same key, or log in again with engram mcp auth login\n$/,
  );
}

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("engram migrate: a note remembered on SQLite is found on PostgreSQL, and the copy comes back", async () => {
    await using dir = await tempDir();
    const db = await cluster.createEmptyDatabase();
    try {
      assertOk(
        await runEngram(["remember", "--path", "/notes/standup.md", "-"], {
          dataDir: dir.path,
          stdin: "# Standup\nShip the importer on Friday.\n",
        }),
      );
      const there = await runEngram(
        ["migrate", "--from", "engram.db", "--to", db.url, "--batch-size", "3"],
        { dataDir: dir.path },
      );
      assertOk(there);
      assert.match(
        there.stdout,
        new RegExp(
          `^copied \\d+ rows from SQLite ${dir.path}/engram\\.db to PostgreSQL 127\\.0\\.0\\.1:\\d+/engram_t`,
        ),
      );
      assert.match(there.stdout, /table +source rows +target rows +checksum \(sha-256\)/);
      assert.match(there.stdout, /\ndocuments +1 +1 +[0-9a-f]{16} +ok\n/);
      assert.match(there.stdout, /\nupstream_credentials +0 +0 +[0-9a-f]{16} +ok\n/);
      assert.match(
        there.stdout,
        /verified: every table's row count and checksum match the source's\n$/,
      );
      assert.ok(!there.stdout.includes(db.url), "the URL is not echoed");

      const config = await writeText(
        dir.path,
        "pg.yaml",
        'storage:\n  backend: postgres\n  url: "${DATABASE_URL}"\n',
      );
      const pgEnv = { DATABASE_URL: db.url, ENGRAM_CONFIG: config };
      const found = await runEngram(["search", "importer", "--json"], {
        dataDir: dir.path,
        env: pgEnv,
      });
      assertOk(found);
      assert.deepEqual(
        (JSON.parse(found.stdout).hits as { path: string }[]).map((h) => h.path),
        ["/notes/standup.md"],
      );

      const back = await runEngram(
        ["migrate", "--from", db.url, "--to", `${dir.path}/back.db`, "--json"],
        { dataDir: dir.path },
      );
      assertOk(back);
      const result = JSON.parse(back.stdout);
      assert.equal(result.status, "complete");
      assert.equal(result.to, `SQLite ${dir.path}/back.db`);
      assert.ok((result.tables as { ok: boolean }[]).every((t) => t.ok));
      assert.deepEqual(dumpSqlite(`${dir.path}/back.db`), dumpSqlite(`${dir.path}/engram.db`));
    } finally {
      await db.drop();
    }
  });

  Deno.test("engram migrate: a non-empty target is refused, and --force copies into it", async () => {
    await using dir = await tempDir();
    const db = await cluster.createEmptyDatabase();
    try {
      fillEveryTable(`${dir.path}/a.db`, { documents: 3 });
      assertCopied(
        await runEngram(["migrate", "--from", "a.db", "--to", db.url], { dataDir: dir.path }),
      );
      const refused = await runEngram(["migrate", "--from", "a.db", "--to", db.url], {
        dataDir: dir.path,
      });
      assertFails(
        refused,
        1,
        /^engram: conflict: PostgreSQL 127\.0\.0\.1:\d+\/\w+ is not empty \(brains: 2, documents: 3, /,
      );
      assert.match(
        refused.stderr,
        /pass --force to empty it and copy into it, or choose an empty database/,
      );
      assertCopied(
        await runEngram(["migrate", "--from", "a.db", "--to", db.url, "--force"], {
          dataDir: dir.path,
        }),
      );
    } finally {
      await db.drop();
    }
  });

  Deno.test("engram migrate: killed with SIGKILL mid-way, the same command resumes and the copy ends identical", async () => {
    await using dir = await tempDir();
    const db = await cluster.createEmptyDatabase();
    try {
      fillEveryTable(`${dir.path}/a.db`, { documents: 60 });
      const args = ["--from", "a.db", "--to", db.url, "--batch-size", "1"];
      const child = await startCopy(dir.path, args, db.url);
      child.kill("SIGKILL");
      const killed = await child.output();
      assert.equal(killed.signal, "SIGKILL");
      const before = await rowsRecorded(db.url);
      assert.ok(before > 0);

      const resumed = await runEngram(["migrate", ...args.slice(0, 4), "--json"], {
        dataDir: dir.path,
      });
      assertCopied(resumed);
      const result = JSON.parse(resumed.stdout);
      assert.equal(result.status, "complete");
      assert.equal(result.resumed, true);
      const total = (result.tables as { source_rows: number }[]).reduce(
        (n, t) => n + t.source_rows,
        0,
      );
      assert.equal(result.copied_rows, total - before, "nothing copied twice, nothing skipped");
      assertCopied(
        await runEngram(["migrate", "--from", db.url, "--to", "back.db"], { dataDir: dir.path }),
      );
      assert.deepEqual(dumpSqlite(`${dir.path}/back.db`), dumpSqlite(`${dir.path}/a.db`));
    } finally {
      await db.drop();
    }
  });

  Deno.test("engram migrate: Ctrl-C stops after the batch under way and says how to continue", async () => {
    await using dir = await tempDir();
    const db = await cluster.createEmptyDatabase();
    try {
      fillEveryTable(`${dir.path}/a.db`, { documents: 60 });
      const args = ["--from", "a.db", "--to", db.url, "--batch-size", "1"];
      const child = await startCopy(dir.path, args, db.url);
      child.kill("SIGINT");
      const out = await child.output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 130, stderr);
      assert.match(
        stderr,
        /^stopped by SIGINT after copying \d+ rows in this run; every batch copied is kept: run the same command again to continue\n$/,
      );
      const again = await runEngram(["migrate", ...args], { dataDir: dir.path });
      assertCopied(again);
      assert.match(again.stdout, /\(resumed: \d+ copied in this run\)/);
    } finally {
      await db.drop();
    }
  });

  Deno.test({
    name: "engram migrate: on a terminal, progress bars for the copy and the check",
    ignore: !HAS_SCRIPT,
    fn: async () => {
      await using dir = await tempDir();
      const db = await cluster.createEmptyDatabase();
      try {
        fillEveryTable(`${dir.path}/a.db`, { documents: 3 });
        const r = await runEngramOnTerminal(["migrate", "--from", "a.db", "--to", db.url], {
          dataDir: dir.path,
        });
        assert.equal(r.code, 0, r.stdout);
        assert.match(r.stdout, /copying {3}[█░]+ \d+\/\d+/);
        assert.match(r.stdout, /verifying [█░]+ \d+\/\d+/);
        assert.match(r.stdout, /verified: every table's row count and checksum match/);
      } finally {
        await db.drop();
      }
    },
  });
}

Deno.test("engram migrate: usage errors name the flag and the fix", async () => {
  await using dir = await tempDir();
  const missing = await runEngram(["migrate", "--to", "postgres://db/engram"], {
    dataDir: dir.path,
  });
  assertFails(
    missing,
    2,
    "engram migrate needs --from: a SQLite file (engram.db) or a postgres:// URL; see: engram migrate --help",
  );
  const batch = await runEngram(
    ["migrate", "--from", "a.db", "--to", "postgres://db/engram", "--batch-size", "0"],
    { dataDir: dir.path },
  );
  assertFails(batch, 2, `--batch-size must be a whole number from 1 to 100000, got "0"`);
  const same = await runEngram(["migrate", "--from", "a.db", "--to", "b.db"], {
    dataDir: dir.path,
  });
  assertFails(
    same,
    2,
    "engram migrate copies between SQLite and PostgreSQL, but --from and --to are both SQLite files (use engram backup and engram restore)",
  );
});
