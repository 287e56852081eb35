/** @module Parsing and matching ingest.allowed_url_hosts / --allow-host entries (src/core/host_pattern.ts). */
import assert from "node:assert/strict";
import {
  hostPatternAllows,
  hostPatternEntry,
  parseHostPattern,
} from "../../src/core/host_pattern.ts";

Deno.test("parseHostPattern accepts host, host:port, bare IPv6 and [ipv6]:port", () => {
  const cases: [string, ReturnType<typeof parseHostPattern>][] = [
    ["127.0.0.1", { host: "127.0.0.1" }],
    ["127.0.0.1:8931", { host: "127.0.0.1", port: 8931 }],
    ["Docs.Internal", { host: "docs.internal" }],
    ["docs.internal:443", { host: "docs.internal", port: 443 }],
    ["localhost:80", { host: "localhost", port: 80 }],
    ["::1", { host: "::1" }],
    ["[::1]", { host: "::1" }],
    ["[::1]:8931", { host: "::1", port: 8931 }],
    ["[0:0:0:0:0:0:0:1]:65535", { host: "::1", port: 65535 }],
    [" 10.0.0.5:1 ", { host: "10.0.0.5", port: 1 }],
  ];
  for (const [entry, expected] of cases) assert.deepEqual(parseHostPattern(entry), expected, entry);
});

Deno.test("parseHostPattern refuses what is not a host with an optional port", () => {
  for (
    const entry of [
      "",
      "127.0.0.1:",
      "127.0.0.1:0",
      "127.0.0.1:65536",
      "127.0.0.1:80:80",
      "host:http",
      "[::1",
      "[::1]:",
      "[not-v6]:80",
      "http://127.0.0.1:8931",
      "127.0.0.1:8931/path",
      "user@host",
      "two words",
    ]
  ) assert.equal(parseHostPattern(entry), null, entry);
});

Deno.test("a bare host allows every port; host:port only that port", () => {
  const any = parseHostPattern("127.0.0.1")!;
  const one = parseHostPattern("127.0.0.1:8931")!;
  assert.ok(hostPatternAllows(any, { host: "127.0.0.1", port: 1 }));
  assert.ok(hostPatternAllows(one, { host: "127.0.0.1", port: 8931 }));
  assert.ok(!hostPatternAllows(one, { host: "127.0.0.1", port: 8932 }));
  assert.ok(!hostPatternAllows(one, { host: "127.0.0.2", port: 8931 }));
  assert.equal(hostPatternEntry("127.0.0.1", 8931), "127.0.0.1:8931");
  assert.equal(hostPatternEntry("::1", 80), "[::1]:80");
});
