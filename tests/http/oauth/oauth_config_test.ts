/**
 * @module `server.oauth` and `server.trusted_proxies` in the config (docs/configuration.md#server):
 * defaults, the public_url OAuth needs, and refusals that name the fix.
 */
import assert from "node:assert/strict";
import { assertRefused, loadYaml } from "../../config/_config.ts";
import { runEngram, tempDir } from "../../helpers.ts";

Deno.test("server.oauth is off by default, with an hour's access tokens and 30-day refresh tokens and registrations", async () => {
  const { config } = await loadYaml(["server:", "  port: 8787"]);
  assert.deepEqual(config.http.oauth, {
    enabled: false,
    access_token_ttl_ms: 3_600_000,
    refresh_token_ttl_ms: 30 * 86_400_000,
    registration_ttl_ms: 30 * 86_400_000,
  });
  assert.deepEqual(config.http.trusted_proxies, []);
});

Deno.test("server.oauth.enabled with an https public_url, or http on a loopback host, loads", async () => {
  for (
    const url of ["https://memory.example.com", "http://127.0.0.1:8787", "http://localhost:9/"]
  ) {
    const { config } = await loadYaml([
      "server:",
      `  public_url: ${url}`,
      "  oauth:",
      "    enabled: true",
      "    access_token_ttl_ms: '600000'",
    ]);
    assert.equal(config.http.oauth.enabled, true, url);
    assert.equal(config.http.oauth.access_token_ttl_ms, 600_000);
  }
});

Deno.test("server.oauth.enabled without server.public_url is refused, naming the key to set", async () => {
  await assertRefused(
    ["server:", "  oauth:", "    enabled: true"],
    3,
    "server.oauth.enabled",
    /needs server\.public_url, the https URL clients reach engram at \(e\.g\. https:\/\/memory\.example\.com\)/,
  );
});

Deno.test("server.oauth.enabled with a plain-http public_url on a public host is refused, pointing at a TLS proxy", async () => {
  await assertRefused(
    ["server:", "  public_url: http://memory.example.com", "  oauth:", "    enabled: true"],
    4,
    "server.oauth.enabled",
    /needs an https server\.public_url, not http:\/\/memory\.example\.com .*http only on a loopback host.*behind a proxy that terminates TLS/,
  );
});

Deno.test("server.oauth.enabled with a public_url that has a path is refused: the issuer is an origin", async () => {
  await assertRefused(
    ["server:", "  public_url: https://example.com/engram", "  oauth:", "    enabled: true"],
    4,
    "server.oauth.enabled",
    /an origin without a path.*\(e\.g\. https:\/\/example\.com\)/,
  );
});

Deno.test("an access token TTL under a minute is refused with the range", async () => {
  await assertRefused(
    ["server:", "  oauth:", "    access_token_ttl_ms: 5"],
    3,
    "server.oauth.access_token_ttl_ms",
    /must be a whole number 60000\.\.604800000, got 5/,
  );
});

Deno.test("server.trusted_proxies takes addresses and CIDR ranges, and refuses anything else by value", async () => {
  const { config } = await loadYaml([
    "server:",
    "  trusted_proxies: [127.0.0.1, 10.0.0.0/8, '::1', 'fd00::/8']",
  ]);
  assert.deepEqual(config.http.trusted_proxies, ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]);
  for (const bad of ["proxy.local", "10.0.0.0/33", "1.2.3", "::1/129", "01.2.3.4"]) {
    await assertRefused(
      ["server:", `  trusted_proxies: ['${bad}']`],
      2,
      "server.trusted_proxies.0",
      new RegExp(`"${bad.replace(/[./]/g, "\\$&")}" is not an IP address or CIDR range`),
    );
  }
});

Deno.test("an unknown key under server.oauth is refused on its own line", async () => {
  await assertRefused(
    ["server:", "  oauth:", "    enabled: false", "    access_token_ttl: 3600"],
    4,
    "server.oauth.access_token_ttl",
    /unknown key; check the spelling/,
  );
});

Deno.test("engram serve with server.oauth.enabled and no public_url does not start, and says what to set", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(file, "server:\n  oauth:\n    enabled: true\n");
  const r = await runEngram(["serve", "--port", "0", "--config", file], { dataDir: dir.path });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /key server\.oauth\.enabled: needs server\.public_url/);
  assert.doesNotMatch(r.stderr, /serving MCP/);
});
