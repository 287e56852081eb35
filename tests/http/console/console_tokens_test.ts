import assert from "node:assert/strict";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { apiErrorOf, signedIn, startConsole } from "./_console.ts";

const withTokens = () =>
  startConsole({ parts: (storage) => ({ tokens: new TokenService(storage) }) });

Deno.test("console tokens: an admin lists, creates (secret shown once) and revokes", async () => {
  await using s = await withTokens();
  const c = await signedIn(s.url, "tok-admin");
  const created = await c.write("POST", "/console/api/tokens", { client: "ci", tier: "read" });
  assert.equal(created.status, 200);
  const { token, record } = await created.json();
  assert.match(token, /^egt_[A-Za-z0-9_-]{43}$/);
  assert.equal(record.client_id, "ci");
  const list = await c.json<{ items: Record<string, unknown>[] }>("/console/api/tokens");
  assert.equal(list.items.length, 1);
  assert.ok(!JSON.stringify(list).includes(token), "a listing never holds a secret");
  const page = await (await c.get("/console/tokens")).text();
  assert.match(page, /data-action="token-revoke"/);
  assert.ok(!page.includes(token));
  const revoked = await c.write("POST", `/console/api/tokens/${record.id}/revoke`);
  assert.equal(revoked.status, 200);
  const again = await apiErrorOf(await c.write("POST", `/console/api/tokens/${record.id}/revoke`));
  assert.equal(again.status, 409);
  assert.match(again.message, /was already revoked/);
  const bad = await apiErrorOf(
    await c.write("POST", "/console/api/tokens", { client: "no spaces", tier: "read" }),
  );
  assert.equal(bad.status, 400);
  assert.match(bad.message, /client must be 1\.\.128 characters/);
});

Deno.test("console tokens: never beyond the creator — its brains, never above its tier", async () => {
  await using s = await withTokens();
  const work = await s.service.createBrain({ name: "Work", slug: "work", visibility: "private" });
  s.tokens.set("tok-scoped-admin", {
    tokenId: "t8",
    clientId: "lead",
    tier: "admin",
    brains: [work.id],
  });
  const c = await signedIn(s.url, "tok-scoped-admin");
  const other = await apiErrorOf(
    await c.write("POST", "/console/api/tokens", {
      client: "x",
      tier: "read",
      brains: ["default"],
    }),
  );
  assert.equal(other.status, 403);
  assert.match(other.message, /brain "default" is not among this token's brains \(work\)/);
  const mine = await c.write("POST", "/console/api/tokens", { client: "x", tier: "write" });
  const { record } = await mine.json();
  assert.deepEqual(record.brains, [work.id], "no brains named: the creator's own");
  const write = await signedIn(s.url, "tok-write");
  const above = await apiErrorOf(
    await write.write("POST", "/console/api/tokens", { client: "x", tier: "read" }),
  );
  assert.equal(above.status, 403);
  assert.match(above.message, /needs tier admin/);
});

Deno.test("console tokens: an operator's new token never has the operator flag, asked or not", async () => {
  await using s = await withTokens();
  const tokens = new TokenService(s.storage);
  const c = await signedIn(s.url, "tok-operator");
  const made = await c.write("POST", "/console/api/tokens", { client: "helper", tier: "admin" });
  assert.equal(made.status, 200);
  const { token, record } = await made.json();
  assert.ok(!("operator" in record));
  assert.ok(!("operator" in (await tokens.verify(token))!), "its grant has no flag");
  const asked = await apiErrorOf(
    await c.write("POST", "/console/api/tokens", { client: "x", tier: "admin", operator: true }),
  );
  assert.equal(asked.status, 400);
  assert.match(asked.message, /operator/);
  const page = await (await c.get("/console/tokens")).text();
  assert.doesNotMatch(page, /name="operator"/, "the form offers no such field");
});
