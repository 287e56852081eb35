/**
 * @module Reconnecting a lost upstream: the backoff schedule (1 s doubling to 60 s, 8 attempts),
 * the `down` mark after the last attempt, the revival on the next explicit use, and a blocked
 * server, which is never started and never retried.
 */
import assert from "node:assert/strict";
import { backoffDelays } from "../../../../src/mcp/client/session/reconnect_backoff.ts";
import { UpstreamConnectError } from "../../../../src/mcp/client/session/upstream_connection.ts";
import {
  type StatusChange,
  UpstreamSession,
} from "../../../../src/mcp/client/session/upstream_session.ts";
import { processesWith, token } from "../launch_setup.ts";
import { FIXTURES, fixtureServer, rejection, textOf, upstreamWorld } from "../upstream_setup.ts";

Deno.test("backoff: 1 s doubling to 60 s, 8 attempts by default", () => {
  assert.deepEqual(backoffDelays(), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
  assert.deepEqual(backoffDelays({ initialMs: 10, maxMs: 30, attempts: 4 }), [10, 20, 30, 30]);
  assert.deepEqual(backoffDelays({ attempts: 0 }), []);
});

/** Status changes as they come; `next(status)` waits for the next change to that status. */
function statusLog() {
  const seen: StatusChange[] = [];
  const waiting: { status: string; from: number; resolve: (c: StatusChange) => void }[] = [];
  return {
    seen,
    onStatus(change: StatusChange) {
      seen.push(change);
      for (const w of [...waiting]) {
        if (w.status === change.status) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(change);
        }
      }
    },
    next(status: string): Promise<StatusChange> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${status}" status in 15 s`)), 15_000);
        waiting.push({
          status,
          from: seen.length,
          resolve: (c) => {
            clearTimeout(timer);
            resolve(c);
          },
        });
      });
    },
  };
}

Deno.test("session: a lost server is retried on the backoff schedule, marked down after the last attempt, and revived by the next use", async () => {
  await using world = await upstreamWorld();
  // A copy of the crashing fixture that the test can take away (every restart then fails) and
  // put back (the next use succeeds).
  const dir = `${world.dir}/fixture`;
  await Deno.mkdir(dir);
  for (const f of ["crashing.ts", "_sdk_server.ts"]) {
    await Deno.copyFile(`${FIXTURES}${f}`, `${dir}/${f}`);
  }
  const mark = token();
  const server = await fixtureServer(world.signer, "flaky", "crashing", {
    file: `${dir}/crashing.ts`,
    mark,
  });
  const log = statusLog();
  const slept: number[] = [];
  const session = new UpstreamSession(server, {
    facts: world.facts,
    requestTimeoutMs: 5000,
    onStatus: log.onStatus,
    // Recorded, not slept: the schedule is checked, the test does not wait 1 + 2 + 4 s.
    backoff: {
      attempts: 3,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    },
  });
  try {
    assert.equal(textOf(await session.callTool("echo", { text: "up" })), "echo: up");
    await Deno.rename(`${dir}/crashing.ts`, `${dir}/gone.ts`);
    const down = log.next("down");
    const crash = await rejection(session.callTool("crash"));
    assert.match(crash.message, /^upstream "flaky" crashed mid-call \(exit code 3\)/);
    const change = await down;
    assert.deepEqual(slept, [1000, 2000, 4000]);
    assert.deepEqual(log.seen.map((c) => c.status), ["ready", "reconnecting", "down"]);
    assert.equal(session.status, "down");
    assert.equal(change.error?.code, "provider_unavailable");
    assert.match(
      change.error!.message,
      /^upstream "flaky" crashed during initialize \(exit code 1\); stderr: .*Module not found "file:\/\/[^"]*\/fixture\/crashing\.ts"\.; check it with: engram mcp doctor flaky$/,
    );
    // deno colours its error; the escape codes arrive as visible text, never raw.
    assert.ok(!change.error!.message.includes("\x1b"));
    assert.deepEqual(processesWith(`--seed ${mark}`), [], "nothing keeps running while down");

    // Down means down until someone asks: one attempt per use, no more background retries.
    const still = await rejection(session.listTools());
    assert.equal(still.code, "provider_unavailable");
    assert.equal(slept.length, 3);
    await Deno.rename(`${dir}/gone.ts`, `${dir}/crashing.ts`);
    assert.equal(textOf(await session.callTool("echo", { text: "back" })), "echo: back");
    assert.equal(session.status, "ready");
    assert.deepEqual(log.seen.map((c) => c.status), [
      "ready",
      "reconnecting",
      "down",
      "down",
      "ready",
    ]);
  } finally {
    await session.close();
  }
});

Deno.test("session: a blocked server throws the rule's message, starts nothing, and is reported blocked", async () => {
  await using world = await upstreamWorld();
  const mark = token();
  const signed = await fixtureServer(world.signer, "unsigned", "well_behaved", { mark });
  const server = { ...signed, manifest_signature: undefined };
  const statuses: StatusChange[] = [];
  const session = new UpstreamSession(server, {
    facts: world.facts,
    onStatus: (s) => statuses.push(s),
  });
  try {
    const error = await rejection(session.listTools());
    assert.ok(error instanceof UpstreamConnectError);
    assert.equal(error.code, "forbidden");
    assert.equal(error.phase, "launch");
    assert.equal(error.blocked?.rule, "manifest_signature");
    assert.equal(
      error.message,
      'mcp server "unsigned" is blocked by rule manifest_signature: manifest_signature is not set; review the launch and sign it: engram mcp review unsigned (or engram mcp sign unsigned --key FILE)',
    );
    assert.deepEqual(statuses.map((s) => s.status), ["blocked"]);
    assert.deepEqual(processesWith(`--seed ${mark}`), []);
  } finally {
    await session.close();
  }
});
