/**
 * The upstream servers in the console: status, capabilities with their approval state and the
 * definition diff, exposure, the report — and approving and revoking, which only a token with the
 * operator flag may do. In-process (the composition root's real `consoleUpstreams` on a real
 * database, grants given by the test); the same through `engram tokens create --operator` and a
 * real `engram serve`, in chromium, is browser/upstream_pages.ts.
 */
import assert from "node:assert/strict";
import type { CapabilityView } from "../../../src/http/console/console_deps.ts";
import { apiErrorOf, signedIn } from "./_console.ts";
import { withUpstreams } from "./_upstreams.ts";

type Server = { capabilities: CapabilityView[]; server: { readiness: string } };

Deno.test("console upstreams: a changed tool shows both definitions; exposure and report", async () => {
  await withUpstreams(async (s) => {
    const c = await signedIn(s.url, "tok-admin");
    const overview = await c.json<{
      servers: { name: string; readiness: string }[];
      exposure: { tiers: Record<string, { tools: string[] }>; hidden: { reason: string }[] };
    }>("/console/api/upstreams");
    assert.deepEqual(overview.servers.map((x) => x.name), ["evil"]);
    // Approved at read, but the definition seen since differs: hidden until approved again.
    assert.deepEqual(overview.exposure.tiers.admin.tools, []);
    assert.deepEqual(overview.exposure.hidden.map((h) => h.reason), ["changed"]);
    const one = await c.json<Server>("/console/api/upstreams/evil");
    const fetch = one.capabilities[0];
    assert.equal(fetch.state, "changed");
    assert.match(fetch.approved!, /"description": "Fetches a page."/);
    assert.match(fetch.live!, /onerror/);
    const missing = await apiErrorOf(await c.get("/console/api/upstreams/nope"));
    assert.equal(missing.status, 404);
    assert.match(missing.message, /no upstream server "nope"/);
  });
});

Deno.test("console upstreams: only an operator token approves and revokes; each is an operator action", async () => {
  await withUpstreams(async (s, runtime) => {
    const admin = await signedIn(s.url, "tok-admin");
    const refused = await apiErrorOf(
      await admin.write("POST", "/console/api/upstreams/evil/approve", {
        kind: "tool",
        name: "fetch",
        expose: "read",
      }),
    );
    assert.equal(refused.status, 403);
    assert.match(refused.message, /approving upstream capabilities is the operator's/);
    const adminPage = await (await admin.get("/console/upstreams/evil")).text();
    assert.doesNotMatch(adminPage, /data-action="approve"/);

    const op = await signedIn(s.url, "tok-operator");
    const page = await (await op.get("/console/upstreams/evil")).text();
    assert.match(page, /data-action="approve"/);
    const approved = await op.write("POST", "/console/api/upstreams/evil/approve", {
      kind: "tool",
      name: "fetch",
      expose: "write",
    });
    assert.equal(approved.status, 200, await approved.clone().text());
    let view = await op.json<Server>("/console/api/upstreams/evil");
    assert.equal(view.capabilities[0].state, "approved");
    assert.equal(view.capabilities[0].exposedTier, "write");
    assert.equal(view.capabilities[0].approvedBy, "console:op");
    const exposure = await op.json<{ exposure: { tiers: Record<string, { tools: string[] }> } }>(
      "/console/api/upstreams",
    );
    assert.deepEqual(exposure.exposure.tiers.read.tools, []);
    assert.deepEqual(exposure.exposure.tiers.write.tools, ["mcp_evil_fetch"]);

    assert.equal(
      (await op.write("POST", "/console/api/upstreams/evil/revoke", {
        kind: "tool",
        name: "fetch",
      }))
        .status,
      200,
    );
    view = await op.json<Server>("/console/api/upstreams/evil");
    assert.equal(view.capabilities[0].state, "revoked");
    const again = await apiErrorOf(
      await op.write("POST", "/console/api/upstreams/evil/revoke", { kind: "tool", name: "fetch" }),
    );
    assert.equal(again.status, 409);
    assert.match(again.message, /already revoked/);
    const actions = [];
    for await (const a of runtime.audit.operatorActions("1970-01-01T00:00:00Z")) actions.push(a);
    assert.deepEqual(actions.map((a) => [a.user, a.command, a.server, a.changes]), [
      ["console:op", "console", "evil", ["approved tool fetch (exposed at write)"]],
      ["console:op", "console", "evil", ["revoked tool fetch"]],
    ]);
  });
});
