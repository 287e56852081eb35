/**
 * Run by console_browser_test.ts in a child `deno test --allow-all` (playwright-core reads /proc at
 * import, which only --allow-all grants). The upstream pages in chromium against a real `engram
 * serve`: an operator — signed in with a token from `engram tokens create --tier admin --operator`
 * — approves a changed upstream tool with the approved and live definitions side by side, then
 * revokes it; a status another process records shows on the open page without a reload; the
 * score charts per server and capability. (A plain admin who cannot approve: memory_pages.ts.)
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { openSqliteStorage } from "../../../../src/storage/sqlite/sqlite_storage.ts";
import { runEngram, tempDir } from "../../../helpers.ts";
import { spawnServe } from "../../http_helpers.ts";
import {
  browserMissing,
  checkPage,
  closeBrowserAndServe,
  launchBrowser,
  screenshotDir,
  watchForScript,
} from "../_browser.ts";
import { seed } from "../_seed.ts";

const missing = browserMissing();
if (missing) console.log(missing);

Deno.test({
  name:
    "console upstreams in chromium: operator approval and revocation, live status, score charts",
  ignore: missing !== null,
  // playwright keeps its pipe to the browser open between steps; both end in the finally below.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using dir = await tempDir("engram-console-upstreams-");
    const shots = await screenshotDir(dir.path);
    const seeded = await seed(dir.path);
    const created = await runEngram(
      ["tokens", "create", "--client", "operator", "--tier", "admin", "--operator"],
      { dataDir: dir.path },
    );
    assert.equal(created.code, 0, created.stderr);
    const operator = created.stdout.trim();
    const serve = await spawnServe(dir.path, []);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.accept();
      });
      await signIn(page, { url: serve.url, token: operator });
      const c = { page, url: serve.url, shots, dataDir: dir.path };
      await t.step("the operator approves with the diff in front, then revokes", async () => {
        await approveAndRevoke(c);
        // The one dialog is the revoke confirmation: the tool's description never ran.
        assert.deepEqual(dialogs, ["Revoke tool fetch? Agents stop seeing it at once."]);
      });
      await t.step(
        "a status recorded by another process shows without a reload",
        () => liveStatus(c),
      );
      await t.step("score charts per server and capability", () => scoreCharts(c));
      await t.step(
        "the operator flag is the server's: a plain admin is still refused",
        async () => {
          const res = await fetch(`${serve.url}/console/api/session`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Origin: serve.url },
            body: JSON.stringify({ token: seeded.tokens.admin }),
          });
          assert.equal((await res.json()).tier, "admin");
          const cookie = res.headers.get("set-cookie")!.split(";")[0];
          const page = await (await fetch(`${serve.url}/console/upstreams/evil`, {
            headers: { cookie },
          })).text();
          assert.doesNotMatch(page, /data-action="approve"/);
        },
      );
    } finally {
      await closeBrowserAndServe(browser, serve);
    }
  },
});

interface Ctx {
  page: Page;
  url: string;
  shots: string;
  dataDir: string;
}

async function signIn(page: Page, o: { url: string; token: string }): Promise<void> {
  await page.goto(`${o.url}/console/sign-in`);
  await page.getByLabel("Token").fill(o.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${o.url}/console/`);
  await page.getByText("operator · admin · operator").waitFor();
}

async function approveAndRevoke(c: Ctx): Promise<void> {
  const { page } = c;
  await page.goto(`${c.url}/console/upstreams/evil`);
  const diff = page.getByLabel("Definition diff");
  await diff.getByRole("heading", { name: "Approved" }).waitFor();
  await diff.getByRole("heading", { name: "Listed now" }).waitFor();
  await checkPage(page, { shots: c.shots, name: "operator-changed" });
  await page.getByLabel("Expose at").selectOption("read");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.getByText("(approved)").waitFor();
  await page.getByText(/approved .* by console:operator/).waitFor();
  await checkPage(page, { shots: c.shots, name: "operator-approved" });
  await page.getByRole("button", { name: "Revoke" }).click();
  await page.getByText("(revoked)").waitFor();
  const watch = watchForScript(page);
  assert.equal(await watch.pwned(), undefined);
}

async function liveStatus(c: Ctx): Promise<void> {
  const { page } = c;
  await page.goto(`${c.url}/console/upstreams`);
  const row = page.locator('tr[data-upstream="evil"]');
  await row.locator('[data-field="last_status"]', { hasText: "none recorded" }).waitFor();
  // deno-lint-ignore no-explicit-any
  await page.evaluate(() => ((globalThis as any).sameDocument = true));
  // Another process (this test) records what its last attempt to reach the server found.
  const storage = openSqliteStorage(`${c.dataDir}/engram.db`);
  try {
    await storage.upstreams.recordUpstreamStatus("evil", {
      status: "down",
      error: "connection refused <img src=x onerror=alert(1)>",
      at: "2030-01-01T00:00:00.000Z",
    });
  } finally {
    storage.close();
  }
  await row.locator('[data-field="last_status"]', { hasText: "down: connection refused" })
    .waitFor();
  await page.locator("#live-status", { hasText: "evil:" }).waitFor();
  // deno-lint-ignore no-explicit-any
  assert.equal(await page.evaluate(() => (globalThis as any).sameDocument), true, "no reload");
  assert.equal(await row.locator("img").count(), 0, "the error is text");
  await checkPage(page, { shots: c.shots, name: "upstreams-live-status" });
}

async function scoreCharts(c: Ctx): Promise<void> {
  const { page } = c;
  await page.goto(`${c.url}/console/upstreams/evil?since=24h`);
  const charts = page.locator("svg.chart");
  await charts.first().waitFor();
  assert.equal(await charts.count(), 3, "the server's chart and one per capability");
  assert.match(
    (await charts.first().getAttribute("aria-label"))!,
    /^Server evil: 12 call\(s\), 3 failed, success 75%/,
  );
  assert.ok(await page.locator("svg.chart rect.err").count() >= 3);
  const box = await charts.first().boundingBox();
  assert.ok(box && box.width > 200 && box.height > 40, JSON.stringify(box));
  await checkPage(page, { shots: c.shots, name: "upstream-scores" });
  await page.goto(`${c.url}/console/upstreams?since=24h`);
  await page.getByRole("heading", { name: "Scores over time" }).waitFor();
  await checkPage(page, { shots: c.shots, name: "upstreams-scores" });
}
