/**
 * Live updates on `/console/events`, in-process: a brain's new versions (an edit, a new document, a
 * forgetting) pushed as they happen, an upstream server's status change pushed when it is recorded,
 * a revoked token ending the stream, and the refusals (nothing named, tier, brain scope).
 */
import assert from "node:assert/strict";
import { ADMIN } from "../../helpers.ts";
import { sseReader } from "../http_helpers.ts";
import { apiErrorOf, type ConsoleClient, signedIn, startConsole } from "./_console.ts";
import { withUpstreams } from "./_upstreams.ts";

/** The events of an open stream, read one at a time as JSON. */
async function follow(c: ConsoleClient, path: string) {
  const res = await c.get(path, { Accept: "text/event-stream" });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  assert.match(res.headers.get("content-type")!, /text\/event-stream/);
  assert.match(res.headers.get("content-security-policy")!, /default-src 'self'/);
  const reader = sseReader(res.body!);
  return {
    next: async () => {
      const e = await reader.next();
      return { event: e.event, data: JSON.parse(e.data) };
    },
    ended: async () => {
      try {
        await reader.next();
        return false;
      } catch {
        return true;
      }
    },
    cancel: () => reader.cancel(),
  };
}

Deno.test("console events: a brain's new versions are pushed as they are written", async () => {
  await using s = await startConsole();
  const doc = await s.service.remember(ADMIN, { content: "# Deploys\n\nTuesdays.", path: "/d.md" });
  const reader = await signedIn(s.url, "tok-read");
  const writer = await signedIn(s.url, "tok-write");
  const events = await follow(reader, "/console/events?brain=default");
  try {
    const edited = await writer.write("PATCH", `/console/api/b/default/doc/${doc.id}`, {
      content: "# Deploys\n\nThursdays.",
    });
    assert.equal(edited.status, 200);
    const v2 = await events.next();
    assert.equal(v2.event, "version");
    assert.deepEqual({ ...v2.data, at: undefined }, {
      document_id: doc.id,
      path: "/d.md",
      title: "Deploys",
      version: 2,
      action: "updated",
      at: undefined,
      href: `/console/b/default/doc/${doc.id}`,
    });
    const fresh = await s.service.remember(ADMIN, { content: "# Fresh <b>x</b>", path: "/f.md" });
    const created = await events.next();
    assert.deepEqual([created.data.document_id, created.data.action, created.data.title], [
      fresh.id,
      "created",
      "Fresh <b>x</b>",
    ]);
    await writer.write("POST", `/console/api/b/default/doc/${doc.id}/forget`);
    const gone = await events.next();
    assert.deepEqual([gone.data.action, gone.data.href], ["deleted", null]);

    // A revoked token ends the stream at its next event: nothing more is sent.
    s.tokens.delete("tok-read");
    await s.service.remember(ADMIN, { content: "# After", path: "/after.md" });
    assert.equal(await events.ended(), true);
  } finally {
    await events.cancel();
  }
});

Deno.test("console events: refusals name what to follow, the tier and the brain", async () => {
  await using s = await startConsole();
  s.tokens.set("tok-scoped", {
    tokenId: "t9",
    clientId: "scoped",
    tier: "admin",
    brains: ["brn_none"],
  });
  const c = await signedIn(s.url, "tok-read");
  const none = await apiErrorOf(await c.get("/console/events"));
  assert.equal(none.status, 400);
  assert.match(none.message, /name what to follow: \/console\/events\?job=ID, \?brain=SLUG/);
  const tier = await apiErrorOf(await c.get("/console/events?upstreams=1"));
  assert.equal(tier.status, 403);
  assert.match(tier.message, /needs tier admin/);
  const scoped = await signedIn(s.url, "tok-scoped");
  const brain = await apiErrorOf(await scoped.get("/console/events?brain=default"));
  assert.equal(brain.code, "no_brain");
  const signedOut = await apiErrorOf(await fetch(`${s.url}/console/events?brain=default`));
  assert.equal(signedOut.status, 403);
  assert.match(signedOut.message, /not signed in/);
});

Deno.test("console events: an upstream server's status change is pushed when it is recorded", async () => {
  await withUpstreams(async (s, runtime) => {
    const c = await signedIn(s.url, "tok-admin");
    const events = await follow(c, "/console/events?upstreams=1");
    try {
      // The first reading goes out whole.
      const first = await events.next();
      assert.equal(first.event, "upstream");
      assert.deepEqual([first.data.name, first.data.last_status], ["evil", "none recorded"]);
      await runtime.upstreams.recordUpstreamStatus("evil", {
        status: "down",
        error: "connection refused <script>",
        at: "2030-01-01T00:00:00.000Z",
      });
      const changed = await events.next();
      assert.equal(changed.data.name, "evil");
      assert.equal(
        changed.data.last_status,
        "down: connection refused <script> (2030-01-01T00:00:00.000Z)",
      );
    } finally {
      await events.cancel();
    }
  });
});
