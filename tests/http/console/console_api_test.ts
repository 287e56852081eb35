import assert from "node:assert/strict";
import { ADMIN } from "../../helpers.ts";
import { sseReader } from "../http_helpers.ts";
import { apiErrorOf, ConsoleClient, signedIn, startConsole } from "./_console.ts";

async function auditRows(storage: Awaited<ReturnType<typeof startConsole>>["storage"]) {
  storage.audit.flush();
  const rows = [];
  for await (const r of storage.audit.auditSamples("1970-01-01T00:00:00Z")) rows.push(r);
  return rows;
}

Deno.test("console: sign-in sets an HttpOnly SameSite=Strict cookie; sign-out ends the session", async () => {
  await using s = await startConsole();
  const c = new ConsoleClient(s.url);
  const res = await fetch(`${s.url}/console/api/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: s.url },
    body: JSON.stringify({ token: "tok-read" }),
  });
  const cookie = res.headers.get("set-cookie")!;
  assert.match(
    cookie,
    /^engram_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/,
  );
  assert.doesNotMatch(cookie, /Secure/);
  const body = await res.json();
  assert.equal(body.client_id, "alice");
  assert.equal(body.tier, "read");
  c.cookie = cookie.split(";")[0];
  c.csrf = body.csrf;
  // Every console response carries the strict CSP.
  const page = await c.get("/console/");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /default-src 'self'/);
  assert.doesNotMatch(page.headers.get("content-security-policy")!, /unsafe-inline/);
  assert.match(await page.text(), /alice · read/);

  const out = await c.write("DELETE", "/console/api/session");
  assert.equal(out.status, 200);
  assert.match(out.headers.get("set-cookie")!, /Max-Age=0/);
  await out.body?.cancel();
  const after = await c.get("/console/");
  await after.body?.cancel();
  assert.equal(after.status, 303);
  assert.equal(after.headers.get("location"), "/console/sign-in?next=%2Fconsole%2F");
  const rows = await auditRows(s.storage);
  assert.deepEqual(
    rows.filter((r) => r.name.startsWith("console_sign")).map((
      r,
    ) => [r.name, r.client_id, r.transport]),
    [["console_sign_in", "alice", "http"], ["console_sign_out", "alice", "http"]],
  );
});

Deno.test("console: Secure cookie when public_url is https", async () => {
  await using s = await startConsole({
    settings: { public_url: "https://memory.example.com", allowed_hosts: [] },
  });
  const res = await fetch(`${s.url}/console/api/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: "https://memory.example.com" },
    body: JSON.stringify({ token: "tok-read" }),
  });
  await res.body?.cancel();
  assert.equal(res.status, 200);
  assert.match(res.headers.get("set-cookie")!, /; Secure;/);
});

Deno.test("console: refusals name the problem — bad token, no session, CSRF, another origin", async () => {
  await using s = await startConsole();
  const anon = new ConsoleClient(s.url);
  const bad = await anon.signIn("egt_nope");
  assert.equal(bad.status, 403);
  assert.match(
    String((bad.body.error as { message: string }).message),
    /invalid or revoked token; create one with: engram tokens create/,
  );

  const noSession = await apiErrorOf(await anon.get("/console/api/brains"));
  assert.equal(noSession.status, 403);
  assert.match(noSession.message, /not signed in/);

  const c = await signedIn(s.url, "tok-write");
  const doc = await s.service.remember(ADMIN, { content: "# Plan\nship it", path: "/p.md" });
  const api = `/console/api/b/default/doc/${doc.id}/forget`;
  const missing = await apiErrorOf(await c.write("POST", api, undefined, { "X-Engram-CSRF": "" }));
  assert.equal(missing.status, 403);
  assert.match(missing.message, /wrong X-Engram-CSRF token/);
  const noHeader = await fetch(`${s.url}${api}`, {
    method: "POST",
    headers: { cookie: c.cookie, Origin: s.url },
  });
  assert.match((await apiErrorOf(noHeader)).message, /missing X-Engram-CSRF header/);
  // A loopback page on another port passes the server's DNS-rebinding check, but not the console's.
  const foreign = await apiErrorOf(
    await c.write("POST", api, undefined, { Origin: "http://localhost:9999" }),
  );
  assert.equal(foreign.status, 403);
  assert.match(foreign.message, /cross-origin request refused: Origin http:\/\/localhost:9999/);
  const site = await apiErrorOf(
    await c.write("POST", api, undefined, { "Sec-Fetch-Site": "cross-site" }),
  );
  assert.match(site.message, /cross-site request refused/);
  // Signing in from another origin is refused too (login CSRF).
  const login = await fetch(`${s.url}/console/api/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: "http://127.0.0.1:1" },
    body: JSON.stringify({ token: "tok-write" }),
  });
  assert.equal((await apiErrorOf(login)).status, 403);
  // Nothing was forgotten by any of them.
  assert.equal((await s.service.get(ADMIN, { id: doc.id })).deleted_at, null);
});

Deno.test("console: a cookie is one session's; a revoked token ends its sessions", async () => {
  await using s = await startConsole();
  const alice = await signedIn(s.url, "tok-write");
  const bob = await signedIn(s.url, "tok-bob");
  const doc = await s.service.remember(ADMIN, { content: "# Keep\nme", path: "/k.md" });
  // Bob's CSRF token with Alice's cookie (or the reverse) is refused.
  const mixed = await apiErrorOf(
    await alice.write("POST", `/console/api/b/default/doc/${doc.id}/forget`, undefined, {
      "X-Engram-CSRF": bob.csrf,
    }),
  );
  assert.equal(mixed.status, 403);
  assert.match(mixed.message, /wrong X-Engram-CSRF token/);
  // A made-up cookie is no session.
  const forged = new ConsoleClient(s.url);
  forged.cookie = "engram_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  assert.equal((await apiErrorOf(await forged.get("/console/api/brains"))).status, 403);
  // Revoking bob's token ends bob's session at the next request; alice's goes on.
  s.tokens.delete("tok-bob");
  const gone = await apiErrorOf(await bob.get("/console/api/brains"));
  assert.equal(gone.status, 403);
  assert.match(gone.message, /not signed in, or the session ended/);
  assert.equal((await alice.get("/console/api/brains")).status, 200);
});

Deno.test("console: a read token sees no write or admin control, and the API refuses them", async () => {
  await using s = await startConsole();
  const c = await signedIn(s.url, "tok-read");
  const doc = await s.service.remember(ADMIN, { content: "# Notes\nabout cats", path: "/n.md" });
  const page = await (await c.get(`/console/b/default/doc/${doc.id}`)).text();
  assert.doesNotMatch(page, /data-action="forget"/);
  assert.doesNotMatch(page, />Edit</);
  assert.doesNotMatch(page, /Upstream servers|Tokens/);
  const edit = await c.get(`/console/b/default/doc/${doc.id}/edit`);
  assert.equal(edit.status, 403);
  assert.match(await edit.text(), /editing needs tier write; this token is tier read/);
  const forced = await apiErrorOf(
    await c.write("PATCH", `/console/api/b/default/doc/${doc.id}`, { content: "# Hacked" }),
  );
  assert.equal(forced.status, 403);
  assert.match(
    forced.message,
    /tool memory_update needs tier write; this session runs at tier read/,
  );
  const forget = await apiErrorOf(
    await c.write("POST", `/console/api/b/default/doc/${doc.id}/forget`),
  );
  assert.equal(forget.code, "forbidden");
  for (const path of ["/console/upstreams", "/console/tokens"]) {
    const r = await c.get(path);
    await r.body?.cancel();
    assert.equal(r.status, 403, path);
  }
  const tokens = await apiErrorOf(await c.get("/console/api/tokens"));
  assert.equal(tokens.status, 403);
  assert.match(tokens.message, /needs tier admin/);
  assert.equal((await s.service.get(ADMIN, { id: doc.id })).version, 1);
  const rows = await auditRows(s.storage);
  const refused = rows.filter((r) => r.outcome === "error").map((r) => [r.name, r.error_code]);
  assert.deepEqual(refused.slice(0, 2), [["memory_update", "forbidden"], [
    "memory_forget",
    "forbidden",
  ]]);
});

Deno.test("console: a token limited to one brain sees only that brain", async () => {
  await using s = await startConsole();
  const work = await s.service.createBrain({ name: "Work", slug: "work", visibility: "private" });
  s.tokens.set("tok-work", { tokenId: "t9", clientId: "w", tier: "write", brains: [work.id] });
  await s.service.remember(ADMIN, { content: "# Secret\nin default", path: "/s.md" });
  const c = await signedIn(s.url, "tok-work");
  const brains = await c.json<{ items: { slug: string }[] }>("/console/api/brains");
  assert.deepEqual(brains.items.map((b) => b.slug), ["work"]);
  const other = await apiErrorOf(await c.get("/console/api/b/default/search?q=secret"));
  assert.equal(other.status, 404);
  assert.equal(other.code, "no_brain");
  const page = await c.get("/console/b/default/");
  assert.equal(page.status, 404);
  assert.doesNotMatch(await page.text(), /Secret/);
});

Deno.test("console: search highlights hits and filters by tag, path, source and date", async () => {
  await using s = await startConsole();
  await s.service.remember(ADMIN, {
    content: "# Garden\nTomatoes need sun.",
    path: "/memory/project/garden.md",
    tags: ["plants"],
  });
  await s.service.remember(ADMIN, {
    content: "# Kitchen\nTomatoes in a sauce.",
    path: "/memory/global/kitchen.md",
  });
  const c = await signedIn(s.url, "tok-read");
  type Hits = { hits: { title: string; highlights: string[] }[] };
  const all = await c.json<Hits>("/console/api/b/default/search?q=tomatoes");
  assert.equal(all.hits.length, 2);
  const tagged = await c.json<Hits>("/console/api/b/default/search?q=tomatoes&tag=plants");
  assert.deepEqual(tagged.hits.map((h) => h.title), ["Garden"]);
  const path = await c.json<Hits>("/console/api/b/default/search?q=tomatoes&path=/memory/global/");
  assert.deepEqual(path.hits.map((h) => h.title), ["Kitchen"]);
  const source = await c.json<Hits>("/console/api/b/default/search?q=tomatoes&source=compile");
  assert.equal(source.hits.length, 0);
  const future = await c.json<Hits>("/console/api/b/default/search?q=tomatoes&since=2999-01-01");
  assert.equal(future.hits.length, 0);
  const bad = await apiErrorOf(await c.get("/console/api/b/default/search?q=x&since=yesterday"));
  assert.equal(bad.status, 400);
  assert.match(bad.message, /since "yesterday" is not a date \(2026-05-01\)/);
  const page = await (await c.get("/console/b/default/search?q=tomatoes")).text();
  assert.match(page, /<mark>Tomatoes<\/mark>/);
  assert.match(page, /2 result\(s\)/);
});

Deno.test("console: edit makes a new version; diff shows it; forget and restore bring it back", async () => {
  await using s = await startConsole();
  const doc = await s.service.remember(ADMIN, {
    content: "# Plan\nline one\nline two\n",
    path: "/plan.md",
    tags: ["a"],
  });
  const c = await signedIn(s.url, "tok-write");
  const api = `/console/api/b/default/doc/${doc.id}`;
  const edited = await c.write("PATCH", api, {
    content: "# Plan\nline one\nline 2\n",
    tags: ["a", "b"],
  });
  assert.equal(edited.status, 200);
  assert.equal((await edited.json()).version, 2);
  const view = await c.json<{ versions: { version: number }[] }>(api);
  assert.deepEqual(view.versions.map((v) => v.version), [2, 1]);
  const diff = await c.json<{ parts: { kind: string; text: string }[] }>(`${api}/diff?from=1&to=2`);
  assert.deepEqual(diff.parts.filter((p) => p.kind !== "same"), [
    { kind: "removed", text: "line two\n" },
    { kind: "added", text: "line 2\n" },
  ]);
  const diffPage = await (await c.get(`/console/b/default/doc/${doc.id}/diff?from=1&to=2`)).text();
  assert.match(diffPage, /<del>- line two\n<\/del><ins>\+ line 2\n<\/ins>/);
  const badRange = await apiErrorOf(await c.get(`${api}/diff?from=1&to=9`));
  assert.equal(badRange.status, 404);
  assert.match(badRange.message, /has no version 9 in brain "default"; its versions are 1..2/);

  assert.equal((await c.write("POST", `${api}/forget`)).status, 200);
  const timeline = await c.json<{ forgotten: { document_id: string }[] }>(
    "/console/api/b/default/timeline",
  );
  assert.deepEqual(timeline.forgotten.map((f) => f.document_id), [doc.id]);
  const restored = await c.write("POST", `${api}/restore`);
  assert.equal(restored.status, 200);
  const back = await s.service.get(ADMIN, { id: doc.id });
  assert.equal(back.deleted_at, null);
  assert.equal(back.content, "# Plan\nline one\nline 2\n");
  const again = await apiErrorOf(await c.write("POST", `${api}/restore`));
  assert.equal(again.status, 409);
  assert.match(again.message, /document \/plan.md is not forgotten; nothing to restore/);
  const rows = await auditRows(s.storage);
  const names = rows.filter((r) => r.client_id === "alice").map((r) => r.name);
  for (const n of ["memory_update", "console_diff", "memory_forget", "console_restore"]) {
    assert.ok(names.includes(n), `${n} in ${names}`);
  }
});

Deno.test("console: ask streams the answer as server-sent events, citations as links", async () => {
  await using s = await startConsole();
  const doc = await s.service.remember(ADMIN, {
    content: "# Deploys\nWe deploy on Tuesdays after the review.",
    path: "/deploys.md",
  });
  const c = await signedIn(s.url, "tok-read");
  const res = await c.write("POST", "/console/api/b/default/ask", {
    question: "When do we deploy?",
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const events = sseReader(res.body!);
  const seen: string[] = [];
  let done: Record<string, unknown> | undefined;
  while (!done) {
    const e = await events.next();
    seen.push(e.event!);
    if (e.event === "done") done = JSON.parse(e.data);
  }
  await events.cancel();
  assert.ok(seen.includes("delta"), seen.join(","));
  assert.match(String(done.answer), /Tuesdays/);
  const citations = done.citations as { document_id: string; href: string; title: string }[];
  assert.ok(citations.length > 0);
  assert.equal(citations[0].document_id, doc.id);
  assert.equal(citations[0].title, "Deploys");
  assert.match(citations[0].href, new RegExp(`^/console/b/default/doc/${doc.id}#:~:text=`));

  const strict = await c.write("POST", "/console/api/b/default/ask", {
    question: "What is the capital of Peru?",
    strict: true,
  });
  const strictEvents = sseReader(strict.body!);
  let last;
  do last = await strictEvents.next(); while (last.event !== "done");
  await strictEvents.cancel();
  const answer = JSON.parse(last.data);
  assert.equal(answer.grounded, false);
  assert.match(answer.answer, /^Not in memory/);
});

Deno.test("console: stored markup is rendered inert — title, body, tags, front matter", async () => {
  await using s = await startConsole();
  const payload = `<img src=x onerror="window.pwned=1">`;
  const doc = await s.service.remember(ADMIN, {
    title: `<script>window.pwned=1</script>${payload}`,
    content:
      `---\nowner: "<script>x</script>"\n---\n# Hi ${payload}\n\n[click](javascript:window.pwned=1)\n\n<script>window.pwned=1</script>\n<a href="https://example.com" onclick="window.pwned=1">ok</a>`,
    path: "/x.md",
    tags: [`"><svg onload=window.pwned=1>`],
  });
  const c = await signedIn(s.url, "tok-read");
  const page = await (await c.get(`/console/b/default/doc/${doc.id}`)).text();
  assert.doesNotMatch(page, /<script>window/);
  assert.doesNotMatch(page, /<img/);
  assert.doesNotMatch(page, /<svg/);
  assert.doesNotMatch(page, /javascript:/);
  assert.doesNotMatch(page, /onclick=/);
  assert.match(page, /&lt;script&gt;window.pwned=1&lt;\/script&gt;/);
  assert.match(page, /<a href="https:\/\/example.com" rel="noopener noreferrer nofollow">ok<\/a>/);
});

Deno.test("console: a token's tools list limits the console too, and the pages still open", async () => {
  await using s = await startConsole();
  s.tokens.set("tok-narrow", {
    tokenId: "t7",
    clientId: "narrow",
    tier: "write",
    brains: "*",
    tools: ["memory_search", "memory_get"],
  });
  const doc = await s.service.remember(ADMIN, { content: "# Narrow\nonly search", path: "/n.md" });
  const c = await signedIn(s.url, "tok-narrow");
  const overview = await c.get("/console/b/default/");
  assert.equal(overview.status, 200);
  assert.match(await overview.text(), /this token's tools list leaves out memory_stats/);
  assert.equal((await c.get(`/console/b/default/doc/${doc.id}`)).status, 200);
  const edit = await apiErrorOf(
    await c.write("PATCH", `/console/api/b/default/doc/${doc.id}`, { content: "# Changed" }),
  );
  assert.equal(edit.status, 403);
  assert.match(edit.message, /memory_update/);
  const restore = await apiErrorOf(
    await c.write("POST", `/console/api/b/default/doc/${doc.id}/restore`),
  );
  assert.equal(restore.status, 403);
  assert.match(restore.message, /memory_remember/);
});
