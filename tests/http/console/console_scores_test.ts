/**
 * Score charts per upstream server and capability over time on the upstream pages and in their
 * API, for the period `?since=` names (the charts themselves: scores/score_series_test.ts).
 */
import assert from "node:assert/strict";
import type { ScoreSeries, ServerSeries } from "../../../src/http/console/scores/score_series.ts";
import { apiErrorOf, signedIn } from "./_console.ts";
import { SEEDED_TRACES } from "./_seed.ts";
import { withUpstreams } from "./_upstreams.ts";

Deno.test("console upstreams: scores per server and capability on the pages and in the API", async () => {
  await withUpstreams(async (s) => {
    const c = await signedIn(s.url, "tok-admin");
    const overview = await c.json<{ scores: ScoreSeries }>("/console/api/upstreams?since=24h");
    assert.deepEqual(overview.scores.servers.map((x) => [x.server, x.calls, x.errors]), [
      ["evil", SEEDED_TRACES, 3],
    ]);
    const one = await c.json<{ scores: ServerSeries }>("/console/api/upstreams/evil?since=24h");
    assert.deepEqual(one.scores.capabilities.map((x) => [x.kind, x.capability, x.calls]), [
      ["tool", "fetch", 8],
      ["resource", "file:///<script>alert(1)</script>", 4],
    ]);
    const page = await (await c.get("/console/upstreams/evil?since=24h")).text();
    assert.equal(page.match(/<svg class="chart"/g)?.length, 3, "the server and two capabilities");
    assert.match(
      page,
      /aria-label="resource file:\/\/\/&lt;script&gt;alert\(1\)&lt;\/script&gt;: 4 call/,
    );
    assert.doesNotMatch(page, /<script>alert/);
    assert.match(
      page,
      /<a href="\/console\/upstreams\/evil\?since=24h" aria-current="true">a day<\/a>/,
    );
    const list = await (await c.get("/console/upstreams")).text();
    assert.match(list, /<svg class="chart"[^>]*aria-label="Server evil: 12 call\(s\), 3 failed/);
    const longAgo = await c.json<{ scores: ServerSeries | null }>(
      "/console/api/upstreams/evil?since=2000-01-01T00:00:00Z",
    );
    assert.equal(longAgo.scores?.calls, SEEDED_TRACES, "an RFC 3339 since works too");
    const bad = await apiErrorOf(await c.get("/console/api/upstreams/evil?since=soon"));
    assert.equal(bad.status, 400);
    assert.match(bad.message, /since "soon" is neither a duration/);
  });
});
