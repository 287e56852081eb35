/**
 * Run by console_browser_test.ts in a child `deno test --allow-all` (playwright-core reads /proc at
 * import, which only --allow-all grants). The web console in a real browser: Debian's chromium, driven headless by playwright-core,
 * against a real `engram serve` on loopback. One browser for the file; each case gets a fresh
 * context (its own cookies). Every page visited is checked by axe-core (no serious or critical
 * violation) and its screenshot written to the output folder (ENGRAM_TEST_OUTPUT, else a temp
 * folder removed afterwards).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../../../helpers.ts";
import { spawnServe } from "../../http_helpers.ts";
import {
  browserMissing,
  checkPage,
  closeBrowserAndServe,
  fetchFromPage,
  launchBrowser,
  screenshotDir,
  seriousViolations,
  watchForScript,
} from "../_browser.ts";
import { seed, type Seeded } from "../_seed.ts";

const missing = browserMissing();
if (missing) console.log(missing);

Deno.test({
  name: "console in chromium: sign-in, memory, ask, ingest, tiers, XSS, CSRF, sessions",
  ignore: missing !== null,
  // playwright keeps its pipe to the browser open between steps; both end in the finally below.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using dir = await tempDir("engram-console-browser-");
    const shots = await screenshotDir(dir.path);
    const seeded = await seed(dir.path);
    const serve = await spawnServe(dir.path, []);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const ctx = { browser, url: serve.url, seeded, shots };
      await t.step("axe reports a known violation (the check is live)", () => axeIsLive(ctx));
      await t.step("sign in, then sign out", () => signInOut(ctx));
      await t.step("search and open a hit", () => searchAndOpen(ctx));
      await t.step("edit, then diff two versions", () => editAndDiff(ctx));
      await t.step("forget, then restore", () => forgetAndRestore(ctx));
      await t.step("ask: the answer streams in with citation links", () => askStreaming(ctx));
      await t.step("upload a file and watch its job", () => uploadAndWatch(ctx));
      await t.step(
        "a read token sees no admin page; the API refuses when forced",
        () => readTokenRefused(ctx),
      );
      await t.step(
        "script in a title, body, tags and tool description never runs",
        () => payloadsInert(ctx),
      );
      await t.step(
        "an admin without the operator flag sees the diff but cannot approve",
        () => plainAdminCannotApprove(ctx),
      );
      await t.step("a write from another origin is refused", () => csrfFromElsewhere(ctx));
      await t.step("a cookie of another session is refused", () => cookieOfAnother(ctx));
    } finally {
      await closeBrowserAndServe(browser, serve);
    }
  },
});

interface Ctx {
  browser: Browser;
  url: string;
  seeded: Seeded;
  shots: string;
}

/** A fresh context signed in with `token` through the sign-in page; its page is on the brains list. */
async function signedInPage(
  c: Ctx,
  token: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await c.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${c.url}/console/`);
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${c.url}/console/`);
  return { context, page };
}

async function axeIsLive(c: Ctx): Promise<void> {
  const page = await c.browser.newPage();
  await page.setContent('<html><body><img src="x.png"><input type="text"></body></html>');
  const found = await seriousViolations(page);
  assert.ok(found.some((v) => v.includes("image-alt")), found.join("; "));
  await page.close();
}

async function signInOut(c: Ctx): Promise<void> {
  const context = await c.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${c.url}/`);
  assert.equal(new URL(page.url()).pathname, "/console/sign-in");
  // The first Tab reaches the skip link.
  await page.keyboard.press("Tab");
  // deno-lint-ignore no-explicit-any
  const focused = await page.evaluate(() => (globalThis as any).document.activeElement?.className);
  assert.equal(focused, "skip");
  await checkPage(page, { shots: c.shots, name: "sign-in" });
  await page.getByLabel("Token").fill("egt_wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("invalid or revoked token").waitFor();
  // From the keyboard: Enter in the field submits.
  await page.getByLabel("Token").fill(c.seeded.tokens.write);
  await page.getByLabel("Token").press("Enter");
  await page.waitForURL(`${c.url}/console/`);
  await page.getByText("alice · write").waitFor();
  const cookie = (await context.cookies()).find((k) => k.name === "engram_console")!;
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, "Strict");
  // deno-lint-ignore no-explicit-any
  const script = await page.evaluate(() => (globalThis as any).document.cookie);
  assert.equal(script, "", "the cookie is not readable by script");
  await checkPage(page, { shots: c.shots, name: "brains" });
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/console\/sign-in$/);
  await page.goto(`${c.url}/console/`);
  assert.equal(new URL(page.url()).pathname, "/console/sign-in");
  await context.close();
}

async function searchAndOpen(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.read);
  await page.getByRole("link", { name: "Default" }).click();
  await page.getByRole("heading", { name: "Statistics" }).waitFor();
  await checkPage(page, { shots: c.shots, name: "brain-overview" });
  await page.getByLabel("Search Default").fill("tomatoes");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.getByText(/result\(s\) in/).waitFor();
  assert.ok(await page.locator("mark", { hasText: /tomatoes/i }).count() >= 1);
  await checkPage(page, { shots: c.shots, name: "search" });
  await page.locator(".hit a", { hasText: "Garden" }).click();
  await page.getByRole("heading", { name: "Garden", level: 1 }).waitFor();
  await page.getByText("Basil grows beside them.").waitFor();
  await checkPage(page, { shots: c.shots, name: "document" });
  await context.close();
}

async function editAndDiff(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.write);
  await page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.deploys}`);
  await page.getByRole("link", { name: "Edit" }).click();
  await checkPage(page, { shots: c.shots, name: "edit" });
  await page.getByLabel("Content (markdown)").fill(
    "# Deploys\n\nWe deploy on Thursdays after the review meeting.\n",
  );
  await page.getByRole("button", { name: "Save as a new version" }).click();
  await page.waitForURL(`${c.url}/console/b/default/doc/${c.seeded.docs.deploys}`);
  await page.getByText(/version 2 ·/).waitFor();
  await page.getByLabel("From").selectOption("1");
  await page.getByLabel("To").selectOption("2");
  await page.getByRole("button", { name: "Compare" }).click();
  await page.locator("pre.diff del").getByText("Tuesdays").waitFor();
  await page.locator("pre.diff ins").getByText("Thursdays").waitFor();
  await checkPage(page, { shots: c.shots, name: "diff" });
  await context.close();
}

async function forgetAndRestore(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.write);
  page.on("dialog", (d) => void d.accept());
  await page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.garden}`);
  await page.getByRole("button", { name: "Forget" }).click();
  await page.waitForURL(`${c.url}/console/b/default/timeline`);
  const row = page.locator(".forgotten li", { hasText: "Garden" });
  await row.waitFor();
  await checkPage(page, { shots: c.shots, name: "timeline" });
  await row.getByRole("button", { name: "Restore" }).click();
  await page.locator(".forgotten li", { hasText: "Garden" }).waitFor({ state: "detached" });
  await page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.garden}`);
  await page.getByText("Tomatoes need full sun").waitFor();
  await context.close();
}

async function askStreaming(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.read);
  await page.goto(`${c.url}/console/b/default/ask`);
  await checkPage(page, { shots: c.shots, name: "ask" });
  await page.getByLabel("Question").fill("When do we deploy?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.locator("#answer-state", { hasText: "Answered by" }).waitFor();
  assert.match(await page.locator("#answer").innerText(), /deploy/i);
  const link = page.locator("#citations a").first();
  const href = await link.getAttribute("href");
  assert.match(href!, new RegExp(`/console/b/default/doc/${c.seeded.docs.deploys}#:~:text=`));
  await checkPage(page, { shots: c.shots, name: "ask-answered" });
  await page.getByLabel("Strict").check();
  await page.getByLabel("Question").fill("What is the airspeed of an unladen swallow?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.locator("#answer-state.not-in-memory", { hasText: "Not in memory" }).waitFor();
  assert.equal(await page.locator("#citations a").count(), 0);
  // The citation's link opens the document it quotes.
  await page.goto(`${c.url}${href}`);
  await page.getByRole("heading", { name: "Deploys", level: 1 }).waitFor();
  await context.close();
}

async function uploadAndWatch(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.write);
  await page.goto(`${c.url}/console/b/default/ingest`);
  await checkPage(page, { shots: c.shots, name: "ingest" });
  await page.getByLabel("Files").setInputFiles([{
    name: "uploaded.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# Uploaded note\n\nCarrots like sandy soil.\n"),
  }]);
  await page.getByRole("button", { name: "Upload" }).click();
  const row = page.locator("#jobs li", { hasText: "uploaded.md" });
  await row.locator(".job-state", { hasText: "completed" }).waitFor();
  await page.getByText("All uploads are done.").waitFor();
  await checkPage(page, { shots: c.shots, name: "ingest-done" });
  await row.getByRole("link", { name: "uploaded.md" }).click();
  await page.getByText("Carrots like sandy soil.").waitFor();
  assert.match(await page.locator(".meta").innerText(), /\/ingest\/upload\/uploaded\.md/);
  await context.close();
}

async function readTokenRefused(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.read);
  const nav = page.getByRole("navigation", { name: "Main" });
  assert.equal(await nav.getByRole("link", { name: "Tokens" }).count(), 0);
  assert.equal(await nav.getByRole("link", { name: "Upstream servers" }).count(), 0);
  await page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.deploys}`);
  assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 0);
  assert.equal(await page.getByRole("button", { name: "Forget" }).count(), 0);
  const tokens = await page.goto(`${c.url}/console/tokens`);
  assert.equal(tokens!.status(), 403);
  await page.getByText("needs tier admin").waitFor();
  await checkPage(page, { shots: c.shots, name: "refused" });
  // Forced from the page itself, with the session's own CSRF token: still refused.
  const create = await fetchFromPage(page, {
    method: "POST",
    path: "/console/api/tokens",
    body: { client: "x", tier: "admin" },
  });
  assert.equal(create.status, 403);
  assert.match(create.message, /needs tier admin/);
  const forget = await fetchFromPage(page, {
    method: "POST",
    path: `/console/api/b/default/doc/${c.seeded.docs.deploys}/forget`,
  });
  assert.equal(forget.status, 403);
  assert.match(forget.message, /needs tier write/);
  const upstreams = await fetchFromPage(page, { method: "GET", path: "/console/api/upstreams" });
  assert.equal(upstreams.status, 403);
  await context.close();
}

async function payloadsInert(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.admin);
  const watch = watchForScript(page);
  const csp: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  const visit = async (path: string, name: string) => {
    await page.goto(`${c.url}${path}`);
    await checkPage(page, { shots: c.shots, name });
    assert.equal(await watch.pwned(), undefined, path);
  };
  await visit(`/console/b/default/doc/${c.seeded.docs.xss}`, "payload-document");
  assert.match(
    await page.locator("h1").innerText(),
    /<script>window\.pwned=1;alert\(1\)<\/script>/,
  );
  assert.equal(await page.locator(".note script, .note svg, .note img").count(), 0);
  assert.equal(await page.locator('.note a[href^="javascript:"]').count(), 0);
  await page.getByText("click me").click();
  await visit("/console/b/default/search?q=payload", "payload-search");
  await visit("/console/b/default/", "payload-overview");
  await visit("/console/b/default/timeline", "payload-timeline");
  await visit("/console/upstreams", "upstreams");
  await visit("/console/upstreams/evil", "upstream-server");
  assert.match(await page.locator(".description").first().innerText(), /<img src=x onerror=/);
  assert.deepEqual(watch.dialogs, []);
  // The sanitiser removed every inline script, so the CSP had nothing to block.
  assert.deepEqual(csp, []);
  await context.close();
}

async function plainAdminCannotApprove(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.admin);
  await page.goto(`${c.url}/console/upstreams/evil`);
  await page.getByText("(changed)").waitFor();
  const sides = page.getByLabel("Definition diff");
  await sides.getByText("Fetches a page.").first().waitFor();
  assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
  assert.equal(await page.getByRole("button", { name: "Revoke" }).count(), 0);
  await page.getByText("Approving and revoking are the operator's").waitFor();
  const forced = await fetchFromPage(page, {
    method: "POST",
    path: "/console/api/upstreams/evil/approve",
    body: { kind: "tool", name: "fetch", expose: "read" },
  });
  assert.equal(forced.status, 403);
  assert.match(
    forced.message,
    /is the operator's: sign in with a token made by engram tokens create --operator/,
  );
  await context.close();
}

async function csrfFromElsewhere(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.write);
  const target = `${c.url}/console/api/b/default/doc/${c.seeded.docs.deploys}/forget`;
  // Another origin on the same host (a different port is another origin, yet the same site, so
  // the SameSite=Strict cookie goes along): a form post, and a fetch that would need CORS.
  const evil = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(
        `<!doctype html><form id="f" method="POST" action="${target}"></form>
<script>
fetch(${
          JSON.stringify(target)
        }, { method: "POST", credentials: "include", headers: { "X-Engram-CSRF": "guess" } })
  .then(r => document.title = "fetch " + r.status, e => document.title = "fetch blocked");
setTimeout(() => document.getElementById("f").submit(), 300);
</script>`,
        { headers: { "Content-Type": "text/html" } },
      ),
  );
  try {
    const response = page.waitForResponse((r) =>
      r.url() === target && r.request().method() === "POST"
    );
    await page.goto(`http://127.0.0.1:${evil.addr.port}/`);
    const posted = await response;
    assert.equal(posted.status(), 403);
    assert.match(await posted.text(), /cross-origin request refused|X-Engram-CSRF/);
  } finally {
    await evil.shutdown();
  }
  await page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.deploys}`);
  await page.getByRole("heading", { name: "Deploys", level: 1 }).waitFor();
  await context.close();
}

async function cookieOfAnother(c: Ctx): Promise<void> {
  const alice = await signedInPage(c, c.seeded.tokens.write);
  const bob = await signedInPage(c, c.seeded.tokens.other);
  const aliceCookie = (await alice.context.cookies()).find((k) => k.name === "engram_console")!;
  // Bob's page, Bob's CSRF token, Alice's cookie: refused.
  await bob.page.goto(`${c.url}/console/b/default/doc/${c.seeded.docs.deploys}`);
  await bob.context.addCookies([aliceCookie]);
  const mixed = await fetchFromPage(bob.page, {
    method: "POST",
    path: `/console/api/b/default/doc/${c.seeded.docs.deploys}/forget`,
  });
  assert.equal(mixed.status, 403);
  assert.match(mixed.message, /wrong X-Engram-CSRF token/);
  await alice.context.close();
  await bob.context.close();
}
