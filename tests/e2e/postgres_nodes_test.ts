/**
 * @module Several `engram serve` nodes on one PostgreSQL database (docs/operations.md#several-nodes-behind-a-load-balancer),
 * each a real process with its own data directory, reached by the real SDK client over Streamable
 * HTTP (tools listed first): a note remembered through node A is found by a search on node B at
 * once (B's cached search is dropped by A's NOTIFY); a resource subscription on B is told of A's
 * write although B polls only hourly; queued jobs are each run by exactly one node; and a node
 * killed with SIGKILL in the middle of an ingest loses nothing it acknowledged — the other node
 * takes its job over once the lease runs out.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { ResourceUpdatedNotificationSchema } from "../../src/mcp/sdk.ts";
import { callOk, collectNotifications, runEngram, tempDir, withTimeout } from "../helpers.ts";
import { connectHttp, spawnServe } from "../http/http_helpers.ts";
import { type Cluster, startCluster } from "../storage/postgres/_cluster.ts";

const cluster = await startCluster();

/** One node's settings; `poll` is storage.change_poll_ms (also the idle job runner's look). */
function nodeConfig(root: string, poll: number): string {
  return [
    "storage:",
    "  backend: postgres",
    '  url: "${DATABASE_URL}"',
    "  pool_size: 4",
    `  change_poll_ms: ${poll}`,
    "mcp:",
    `  allowed_file_roots: [${JSON.stringify(root)}]`,
    "ingest:",
    "  queue_bytes: 1000",
    "  job_lease_ms: 1500",
    "",
  ].join("\n");
}

/** A database, a folder of files both nodes may ingest, an admin token, and a way to start nodes. */
async function setup(cluster: Cluster, poll: number) {
  const db = await cluster.createEmptyDatabase();
  const dirs: ({ path: string } & AsyncDisposable)[] = [];
  const dir = async () => {
    const d = await tempDir("engram-node-");
    dirs.push(d);
    return d.path;
  };
  const files = await dir();
  const env = async () => {
    const data = await dir();
    const config = `${data}/engram.yaml`;
    await Deno.writeTextFile(config, nodeConfig(files, poll));
    return { data, env: { DATABASE_URL: db.url, ENGRAM_CONFIG: config } };
  };
  const first = await env();
  const created = await runEngram(["tokens", "create", "--client", "alice", "--tier", "admin"], {
    dataDir: first.data,
    env: first.env,
  });
  assert.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim().split("\n")[0];
  const nodes: Awaited<ReturnType<typeof spawnServe>>[] = [];
  return {
    db,
    files,
    /** Starts a node (its own data directory, the shared database) and connects a client to it. */
    async node() {
      const { data, env: vars } = await env();
      const serve = await spawnServe(data, [], { env: vars });
      nodes.push(serve);
      const client = await connectHttp(`${serve.url}/mcp`, token);
      return { serve, client };
    },
    async [Symbol.asyncDispose]() {
      for (const n of nodes) {
        try {
          n.child.kill("SIGTERM");
        } catch {
          // Already gone (the test killed it).
        }
        await n.child.status;
        await n.child.stdout.cancel().catch(() => {});
      }
      await db.drop();
      for (const d of dirs) await d[Symbol.asyncDispose]();
    },
  };
}

/** A markdown file of `sections` sections under the shared folder; its path. */
async function writeNotes(dir: string, name: string, sections: number): Promise<string> {
  const body = Array.from(
    { length: sections },
    (_, i) => `## Section ${i}\n\nThe quarterly walrus ledger, entry ${i}, reconciled.\n`,
  ).join("\n");
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `# ${name}\n\n${body}`);
  return path;
}

/** How many times each job id was completed, counted from the nodes' logs. */
function completions(logs: string[], ids: string[]): number[] {
  return ids.map((id) =>
    logs.reduce(
      (n, log) =>
        n + (log.match(new RegExp(`job ${id} \\(ingest_file\\) completed`, "g"))?.length ?? 0),
      0,
    )
  );
}

interface Hit {
  path: string;
}

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("nodes: a note remembered through node A is found by a search on node B at once, and B's subscriber is told", async () => {
    // Change polling once an hour: only A's NOTIFY can reach B in time.
    await using s = await setup(cluster, 3_600_000);
    const a = await s.node();
    const b = await s.node();
    await using _a = a.client;
    await using _b = b.client;
    const updates = collectNotifications(b.client, ResourceUpdatedNotificationSchema);
    const listing = "engram://brains/default/documents";
    await b.client.subscribeResource({ uri: listing });
    // B has searched (and cached the answer: nothing) before A writes.
    const before = await callOk<{ hits: Hit[] }>(b.client, "memory_search", { query: "walrus" });
    assert.deepEqual(before.hits, []);

    const note = await callOk<{ path: string }>(a.client, "memory_remember", {
      content: "# Standup\n\nThe walrus ledger ships on Friday.",
    });
    const after = await callOk<{ hits: Hit[] }>(b.client, "memory_search", { query: "walrus" });
    assert.deepEqual(after.hits.map((h) => h.path), [note.path], "B sees A's note at once");
    const update = await withTimeout(
      updates.next(),
      "B's subscription to hear of A's write",
      10_000,
    );
    assert.equal(update.params.uri, listing);
  });

  Deno.test("nodes: queued jobs enqueued through either node are each run by exactly one", async () => {
    await using s = await setup(cluster, 200);
    const a = await s.node();
    const b = await s.node();
    await using _a = a.client;
    await using _b = b.client;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const path = await writeNotes(s.files, `ledger-${i}.md`, 40);
      const via = i % 2 ? b.client : a.client;
      const queued = await callOk<{ status: string; job_id: string }>(via, "memory_ingest_file", {
        path,
      });
      assert.equal(queued.status, "queued");
      ids.push(queued.job_id);
    }
    for (const id of ids) {
      const job = await callOk<{ status: string; attempts: number }>(b.client, "memory_job", {
        job_id: id,
        wait_ms: 30_000,
      });
      assert.equal(job.status, "completed", JSON.stringify(job));
      assert.equal(job.attempts, 1, "claimed once");
    }
    const found = await callOk<{ hits: Hit[] }>(a.client, "memory_search", {
      query: "walrus",
      top_k: 20,
    });
    assert.equal(found.hits.length, 6, "each file stored once");
    // Each completion is logged by the node that ran the job: one line per job, over both logs.
    a.serve.child.kill("SIGTERM");
    b.serve.child.kill("SIGTERM");
    await Promise.all([a.serve.child.status, b.serve.child.status]);
    const logs = await Promise.all([a.serve.stderr(), b.serve.stderr()]);
    assert.deepEqual(completions(logs, ids), ids.map(() => 1));
  });

  Deno.test("nodes: a node killed mid-ingest loses nothing it acknowledged; the other takes its job over", async () => {
    await using s = await setup(cluster, 200);
    const a = await s.node();
    await using _a = a.client;
    const remembered: string[] = [];
    for (let i = 0; i < 5; i++) {
      const doc = await callOk<{ path: string }>(a.client, "memory_remember", {
        content: `# Decision ${i}\n\nThe walrus budget ${i} is approved.`,
      });
      remembered.push(doc.path);
    }
    // Another writer (a transaction left open) holds the path the ingest will write: A's job
    // claims the file, reads it, and waits at its insert: mid-ingest, for as long as this holds.
    const big = await writeNotes(s.files, "ledger.md", 300);
    const sql = postgres(s.db.url, { max: 2, onnotice: () => {} });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const inPlace = new Promise<void>((r) => (holding = r));
    const blocker = sql.begin(async (tx) => {
      const [brain] = await tx`SELECT id FROM brains WHERE slug = 'default'`;
      await tx`INSERT INTO documents (id, brain_id, path, title, source, content_type, byte_size,
                 checksum_sha256, commit_sha, version, created_at, updated_at)
               VALUES ('doc_blocker', ${brain.id}, ${
        "/ingest/" + s.files.split("/").pop() + "/ledger.md"
      },
                 'x', 'ingest', 'text/markdown', 1, 'x', 'x', 1, 'x', 'x')`;
      holding();
      await held;
      throw new Error("rolled back on purpose");
    }).catch(() => {});
    try {
      await inPlace;
      const queued = await callOk<{ status: string; job_id: string }>(
        a.client,
        "memory_ingest_file",
        {
          path: big,
        },
      );
      assert.equal(queued.status, "queued");
      // A claimed the job (B is not running yet) and is waiting at the insert.
      for (let i = 0;; i++) {
        const [w] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`;
        const [job] = await sql`SELECT status FROM jobs WHERE id = ${queued.job_id}`;
        if (w.n > 0 && job.status === "running") break;
        assert.ok(i < 1500, "A never got to its insert");
        await new Promise((r) => setTimeout(r, 20));
      }
      const b = await s.node();
      await using _b = b.client;
      a.serve.child.kill("SIGKILL");
      assert.equal((await a.serve.child.status).signal, "SIGKILL");
      release();
      await blocker;
      const job = await callOk<{ status: string; attempts: number }>(b.client, "memory_job", {
        job_id: queued.job_id,
        wait_ms: 60_000,
      });
      assert.equal(job.status, "completed", JSON.stringify(job));
      assert.equal(job.attempts, 2, "taken over after A's lease ran out");
      const found = await callOk<{ hits: Hit[] }>(b.client, "memory_search", {
        query: "walrus",
        top_k: 20,
      });
      assert.deepEqual(
        found.hits.map((h) => h.path).sort(),
        [...remembered, `/ingest/${s.files.split("/").pop()}/ledger.md`].sort(),
      );
      const stored = await callOk<{ content: string; version: number }>(b.client, "memory_get", {
        path: `/ingest/${s.files.split("/").pop()}/ledger.md`,
      });
      assert.equal(stored.content, await Deno.readTextFile(big), "the whole file, once");
      assert.equal(stored.version, 1);
      b.serve.child.kill("SIGTERM");
      await b.serve.child.status;
      assert.match(
        await b.serve.stderr(),
        new RegExp(`job ${queued.job_id} \\(ingest_file\\) completed`),
      );
    } finally {
      release();
      await blocker;
      await sql.end();
    }
  });
}
