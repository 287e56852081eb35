/**
 * Run by console_browser_test.ts in a child `deno test --allow-all` (playwright-core reads /proc at
 * import, which only --allow-all grants). In chromium against a real `engram serve`: the Synthesis
 * page (open loops, decisions, the context pack for a topic, each item a link to its source), and
 * live updates — a new version written in another session shows on an open document page, and a
 * document remembered by another process shows on the open timeline, neither page reloaded.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { runEngram, tempDir } from "../../../helpers.ts";
import { spawnServe } from "../../http_helpers.ts";
import {
  browserMissing,
  checkPage,
  closeBrowserAndServe,
  fetchFromPage,
  launchBrowser,
  screenshotDir,
  watchForScript,
} from "../_browser.ts";
import { seed, type Seeded } from "../_seed.ts";

const missing = browserMissing();
if (missing) console.log(missing);

Deno.test({
  name: "console in chromium: synthesis pages and live updates",
  ignore: missing !== null,
  // playwright keeps its pipe to the browser open between steps; both end in the finally below.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using dir = await tempDir("engram-console-synthesis-");
    const shots = await screenshotDir(dir.path);
    const seeded = await seed(dir.path);
    const serve = await spawnServe(dir.path, []);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const c = { browser, url: serve.url, seeded, shots, dataDir: dir.path };
      await t.step(
        "open loops, decisions and the pack for a topic, linked to their sources",
        () => synthesisPage(c),
      );
      await t.step("a new version shows on the open document page", () => liveVersion(c));
      await t.step(
        "another process's new document shows on the open timeline",
        () => liveTimeline(c),
      );
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
  dataDir: string;
}

async function signedInPage(
  c: Ctx,
  token: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await c.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${c.url}/console/sign-in`);
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${c.url}/console/`);
  return { context, page };
}

/** Marks the document, so a reload (a new document) is noticed. */
async function markDocument(page: Page): Promise<() => Promise<boolean>> {
  // deno-lint-ignore no-explicit-any
  await page.evaluate(() => ((globalThis as any).sameDocument = true));
  // deno-lint-ignore no-explicit-any
  return async () => await page.evaluate(() => (globalThis as any).sameDocument === true);
}

async function synthesisPage(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.read);
  const watch = watchForScript(page);
  await page.getByRole("link", { name: "Default" }).click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Synthesis" })
    .click();
  await page.getByRole("heading", { name: "Open loops" }).waitFor();
  const loops = page.locator(".loops li");
  await loops.filter({ hasText: "write the release notes" }).waitFor();
  await loops.filter({ hasText: "Who signs off the release?" }).waitFor();
  // The payload in a task is text.
  await loops.filter({ hasText: "check <img src=x onerror=" }).waitFor();
  await page.getByText("Give a topic to pack").waitFor();
  await checkPage(page, { shots: c.shots, name: "synthesis" });

  await page.getByLabel("Topic").fill("release");
  await page.getByRole("button", { name: "Show" }).click();
  await page.getByRole("heading", { name: "Synthesis: release", level: 1 }).waitFor();
  const decision = page.locator(".decisions li", { hasText: "ship the release on Fridays" });
  await decision.waitFor();
  const sources = page.locator(".sources a", { hasText: "Release" });
  assert.equal(
    await sources.getAttribute("href"),
    `/console/b/default/doc/${c.seeded.docs.release}`,
  );
  await checkPage(page, { shots: c.shots, name: "synthesis-topic" });
  assert.equal(await watch.pwned(), undefined);
  assert.deepEqual(watch.dialogs, []);

  // A decision's link opens the document it comes from, at the quoted passage.
  const link = decision.getByRole("link");
  assert.match((await link.getAttribute("href"))!, /#:~:text=/);
  await link.click();
  await page.getByRole("heading", { name: "Release", level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/console/b/default/doc/${c.seeded.docs.release}`);
  await context.close();
}

async function liveVersion(c: Ctx): Promise<void> {
  const reader = await signedInPage(c, c.seeded.tokens.read);
  const writer = await signedInPage(c, c.seeded.tokens.write);
  const doc = `/console/b/default/doc/${c.seeded.docs.garden}`;
  await reader.page.goto(`${c.url}${doc}`);
  await reader.page.getByText("Tomatoes need full sun").waitFor();
  const same = await markDocument(reader.page);
  // The stream is open once the page's script has run; a write from the other session follows.
  await reader.page.locator('main[data-live-state="open"]').waitFor({ state: "attached" });
  await writer.page.goto(`${c.url}${doc}`);
  const edited = await fetchFromPage(writer.page, {
    method: "PATCH",
    path: `/console/api/b/default/doc/${c.seeded.docs.garden}`,
    body: { content: "# Garden\n\nTomatoes need full sun and rain water.\n" },
  });
  assert.equal(edited.status, 200, edited.message);
  const status = reader.page.locator("#live-status");
  await status.getByText(/Version \d+ was just written/).waitFor();
  assert.equal(await same(), true, "the page was not reloaded");
  await checkPage(reader.page, { shots: c.shots, name: "document-live-version" });
  await status.getByRole("link", { name: /Show version/ }).click();
  await reader.page.getByText("rain water").waitFor();
  await reader.context.close();
  await writer.context.close();
}

async function liveTimeline(c: Ctx): Promise<void> {
  const { context, page } = await signedInPage(c, c.seeded.tokens.read);
  await page.goto(`${c.url}/console/b/default/timeline`);
  await page.getByRole("heading", { name: "Changes" }).waitFor();
  await page.locator('main[data-live-state="open"]').waitFor({ state: "attached" });
  const same = await markDocument(page);
  // Another engram process writes to the same database: the server's change feed finds it.
  const r = await runEngram(["remember", "--path", "/memory/project/compost.md", "-"], {
    dataDir: c.dataDir,
    stdin: "# Compost\n\nTurn the heap every week.\n",
  });
  assert.equal(r.code, 0, r.stderr);
  const row = page.locator("tbody[data-live-changes] tr.fresh", { hasText: "Compost" });
  await row.waitFor();
  assert.match(await row.innerText(), /created/);
  assert.equal(await same(), true, "the page was not reloaded");
  await page.locator("#live-status", { hasText: "created: Compost" }).waitFor();
  await checkPage(page, { shots: c.shots, name: "timeline-live" });
  await row.getByRole("link", { name: "Compost" }).click();
  await page.getByText("Turn the heap every week.").waitFor();
  await context.close();
}
