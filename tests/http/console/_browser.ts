/**
 * @module Driving Debian's chromium for the console's browser tests: playwright-core (npm, pinned)
 * pointed at the system binary — no browser download — headless, one browser per test file, a
 * fresh profile each launch; axe-core injected into each page; screenshots to the test's output
 * folder. Where chromium is missing the tests say `skipping …` and why.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import { type Browser, chromium, type Page } from "playwright-core";
import type { spawnServe } from "../http_helpers.ts";
import { CHROMIUM } from "./_chromium.ts";

export { browserMissing, CHROMIUM } from "./_chromium.ts";

/** Launches headless chromium with a fresh profile (playwright makes a new one each launch). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    timeout: 30_000,
  });
}

/**
 * The axe-core violations of impact serious or critical on the page as it stands. axe is put in
 * through the DevTools protocol (page.evaluate), which the page's CSP does not govern: the console
 * itself never allows inline script.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const has = await page.evaluate(() => "axe" in globalThis);
  if (!has) await page.evaluate(axe.source);
  const results = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const r = await g.axe.run(g.document, { resultTypes: ["violations"] });
    return r.violations.map((
      v: { id: string; impact: string; help: string; nodes: unknown[] },
    ) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  });
  return (results as { id: string; impact: string; help: string; nodes: number }[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes} node(s))`);
}

/** Asserts axe finds no serious or critical violation, and writes the page's screenshot. */
export async function checkPage(page: Page, o: { shots: string; name: string }): Promise<void> {
  await page.screenshot({ path: `${o.shots}/${o.name}.png`, fullPage: true });
  const found = await seriousViolations(page);
  assert.deepEqual(found, [], `${o.name}: ${page.url()}`);
}

/** Collects what the page would report as an XSS: dialogs, console errors about CSP, `window.pwned`. */
export function watchForScript(page: Page): { dialogs: string[]; pwned: () => Promise<unknown> } {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return {
    dialogs,
    pwned: () => page.evaluate(() => (globalThis as unknown as { pwned?: unknown }).pwned),
  };
}

/** What a request made from the page's own script got back. */
export interface PageFetch {
  status: number;
  /** The error message of a console API refusal, else "". */
  message: string;
}

/**
 * A request made by script in the page, as the page's own code would make it: same origin, the
 * session's cookie, and (unless `csrf` is false) the CSRF token from the page's meta tag.
 */
export function fetchFromPage(
  page: Page,
  o: { method: string; path: string; body?: unknown; csrf?: boolean },
): Promise<PageFetch> {
  return page.evaluate(async ({ method, path, body, csrf }) => {
    // deno-lint-ignore no-explicit-any
    const g = globalThis as any;
    const token = g.document.querySelector('meta[name="engram-csrf"]')?.getAttribute("content");
    const headers: Record<string, string> = csrf === false ? {} : { "X-Engram-CSRF": token ?? "" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const r = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let message = "";
    try {
      message = JSON.parse(text).error?.message ?? "";
    } catch {
      message = "";
    }
    return { status: r.status, message };
  }, o);
}

/** Where a browser test's screenshots go: `ENGRAM_TEST_OUTPUT`, else `<dir>/screenshots`; made. */
export async function screenshotDir(dir: string): Promise<string> {
  const shots = Deno.env.get("ENGRAM_TEST_OUTPUT") ?? `${dir}/screenshots`;
  await Deno.mkdir(shots, { recursive: true });
  return shots;
}

/** Closes the browser (when it started), then stops `engram serve` and drains its output. */
export async function closeBrowserAndServe(
  browser: Browser | undefined,
  serve: Awaited<ReturnType<typeof spawnServe>>,
): Promise<void> {
  await browser?.close();
  serve.child.kill("SIGTERM");
  await serve.child.status;
  await serve.child.stdout.cancel();
  await serve.stderr();
}
