/**
 * @module The web console's first page, measured in a real browser (issue 29): Debian's chromium
 * driven headless by playwright-core against a spawned `engram serve` on loopback. For the sign-in
 * page (the very first page) and the brains page after signing in: the bytes on the wire (bodies
 * as sent plus headers, cache off), the time to the first byte and to first contentful paint (the
 * browser's own `paint` entry) — in a new browser context (its renderer starts for the page) and
 * reloaded with the cache off — median and worst of `--runs`. Targets: under 150 KB compressed,
 * first render under 200 ms on loopback.
 *
 * Run: `deno task bench:console [--runs 15]` (needs /usr/bin/chromium).
 */
import { parseArgs } from "node:util";
import type { Page, Request } from "playwright-core";
import { TokenService } from "../src/core/bearer_tokens.ts";
import { ensureDefaultBrain } from "../src/core/brains.ts";
import { openSqliteStorage } from "../src/storage/sqlite/sqlite_storage.ts";
import { CHROMIUM, launchBrowser } from "../tests/http/console/_browser.ts";
import { spawnServe } from "../tests/http/http_helpers.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" } },
});
const runs = Number(values.runs);

try {
  Deno.statSync(CHROMIUM);
} catch {
  console.error(`${CHROMIUM} is not installed (apt-get install chromium)`);
  Deno.exit(1);
}

const dir = await Deno.makeTempDir({ prefix: "engram-bench-console-" });
const storage = openSqliteStorage(`${dir}/engram.db`);
await ensureDefaultBrain(storage.brains);
const token = (await new TokenService(storage).create({ client: "bench", tier: "admin" })).token;
storage.close();
const serve = await spawnServe(dir, []);
const browser = await launchBrowser();

/** One load of `path`: bytes on the wire, time to first byte, first contentful paint. */
async function load(page: Page, path: string): Promise<Sample> {
  const sizes: Promise<number>[] = [];
  const onDone = (r: Request) =>
    sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
  page.on("requestfinished", onDone);
  await page.goto(`${serve.url}${path}`, { waitUntil: "load" });
  const t = await page.evaluate(() =>
    new Promise<{ ttfb: number; fcp: number }>((resolve) => {
      // deno-lint-ignore no-explicit-any
      const nav = performance.getEntriesByType("navigation")[0] as any;
      const done = (fcp: number) => resolve({ ttfb: nav.responseStart, fcp });
      const found = performance.getEntriesByName("first-contentful-paint")[0];
      if (found) return done(found.startTime);
      new PerformanceObserver((list) => done(list.getEntries()[0].startTime)).observe({
        type: "paint",
        buffered: true,
      });
    })
  );
  page.off("requestfinished", onDone);
  const bytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  return { bytes, ...t };
}

interface Sample {
  bytes: number;
  ttfb: number;
  fcp: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const pages = ["/console/sign-in", "/console/"];
  /** Per page: loads in a new browser context (the renderer starts for it), and cache-off reloads. */
  const cold = new Map<string, Sample[]>(pages.map((p) => [p, []]));
  const warm = new Map<string, Sample[]>(pages.map((p) => [p, []]));
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    const res = await context.request.post(`${serve.url}/console/api/session`, {
      data: { token },
      headers: { Origin: serve.url },
    });
    if (!res.ok()) throw new Error(`sign-in failed: ${res.status()}`);
    for (const path of pages) {
      const page = await context.newPage();
      cold.get(path)!.push(await load(page, path));
      // The same page again with the cache off: what the browser does, without its start-up.
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
      warm.get(path)!.push(await load(page, path));
      await page.close();
    }
    await context.close();
  }
  console.log(`${runs} loads each, chromium ${browser.version()}, engram serve on loopback`);
  console.log(
    "| page | bytes on the wire | first byte, median | first contentful paint, median (max): new context / cache off |",
  );
  console.log("| --- | --- | --- | --- |");
  for (const path of pages) {
    const c = cold.get(path)!;
    const w = warm.get(path)!;
    const ms = (xs: Sample[], k: "fcp" | "ttfb") => median(xs.map((x) => x[k])).toFixed(0);
    const max = (xs: Sample[]) => Math.max(...xs.map((x) => x.fcp)).toFixed(0);
    console.log(
      `| ${path} | ${(median(w.map((x) => x.bytes)) / 1024).toFixed(1)} KiB | ${
        ms(w, "ttfb")
      } ms | ${ms(c, "fcp")} (${max(c)}) / ${ms(w, "fcp")} (${max(w)}) ms |`,
    );
  }
} finally {
  await browser.close();
  serve.child.kill("SIGTERM");
  await serve.child.status;
  await serve.child.stdout.cancel();
  await serve.stderr();
  await Deno.remove(dir, { recursive: true });
}
