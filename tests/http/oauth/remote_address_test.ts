/**
 * @module Who asks, by address (docs/connectors.md#rate-limits): X-Forwarded-For is believed only
 * from a peer in server.trusted_proxies, read from the right; IPv6 clients are limited by /64; the
 * limiter's table stays bounded.
 */
import assert from "node:assert/strict";
import { AddressLimiter } from "../../../src/http/oauth/address_limiter.ts";
import {
  addressKey,
  clientAddress,
  isTrustedProxy,
  parseAddress,
  parseTrustedProxies,
} from "../../../src/http/oauth/remote_address.ts";

const req = (xff?: string) =>
  new Request("http://x/register", { headers: xff ? { "X-Forwarded-For": xff } : {} });

Deno.test("addresses parse in IPv4, IPv6 and IPv4-mapped IPv6 forms; anything else is not one", () => {
  assert.deepEqual([...parseAddress("10.1.2.3")!], [10, 1, 2, 3]);
  assert.deepEqual([...parseAddress("::ffff:10.1.2.3")!], [10, 1, 2, 3]);
  assert.equal(parseAddress("[2001:db8::1]")!.length, 16);
  assert.equal(parseAddress("fe80::1%eth0")!.length, 16);
  for (const bad of ["", "host.example", "1.2.3.256", "1.2.3", "::g"]) {
    assert.equal(parseAddress(bad), null, bad);
  }
});

Deno.test("trusted proxies match by address and by CIDR range, IPv4 and IPv6", () => {
  const proxies = parseTrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  assert.ok(isTrustedProxy("127.0.0.1", proxies));
  assert.ok(isTrustedProxy("::ffff:127.0.0.1", proxies));
  assert.ok(isTrustedProxy("10.200.3.4", proxies));
  assert.ok(isTrustedProxy("fd12:3456::1", proxies));
  assert.ok(!isTrustedProxy("127.0.0.2", proxies));
  assert.ok(!isTrustedProxy("11.0.0.1", proxies));
  assert.ok(!isTrustedProxy("fe80::1", proxies));
});

Deno.test("without trusted proxies, X-Forwarded-For is ignored: the peer is the client", () => {
  assert.equal(
    clientAddress(req("203.0.113.9"), { peer: "198.51.100.1", trustedProxies: [] }),
    "198.51.100.1",
  );
});

Deno.test("from a trusted proxy, the right-most address that is not a trusted proxy is the client", () => {
  const trustedProxies = parseTrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
  // The client wrote "1.1.1.1" itself; the proxies appended what they saw, so it is never reached.
  const xff = "1.1.1.1, 203.0.113.9, 10.0.0.2";
  assert.equal(clientAddress(req(xff), { peer: "127.0.0.1", trustedProxies }), "203.0.113.9");
  // A peer that is not trusted cannot name anyone.
  assert.equal(clientAddress(req(xff), { peer: "198.51.100.1", trustedProxies }), "198.51.100.1");
  // No header: the proxy itself.
  assert.equal(clientAddress(req(), { peer: "127.0.0.1", trustedProxies }), "127.0.0.1");
  // A malformed entry stops the walk at the last trusted hop.
  assert.equal(clientAddress(req("junk"), { peer: "127.0.0.1", trustedProxies }), "127.0.0.1");
});

Deno.test("IPv6 clients share a rate-limit key per /64; IPv4 ones have their own", () => {
  assert.equal(addressKey("2001:db8:1:2:aaaa::1"), addressKey("2001:db8:1:2:bbbb::9"));
  assert.notEqual(addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"));
  assert.equal(addressKey("::ffff:192.0.2.1"), "192.0.2.1");
});

Deno.test("the address limiter allows a burst, then says how long to wait, and refills with time", () => {
  let now = 0;
  const limiter = new AddressLimiter(3, { now: () => now });
  assert.deepEqual([limiter.take("a"), limiter.take("a"), limiter.take("a")], [0, 0, 0]);
  assert.equal(limiter.take("a"), 20);
  assert.equal(limiter.take("b"), 0, "another address has its own bucket");
  now += 20_000;
  assert.equal(limiter.take("a"), 0);
});

Deno.test("the address limiter's table stays bounded under a flood of addresses, and keeps busy ones", () => {
  let now = 0;
  const limiter = new AddressLimiter(1, { now: () => now });
  assert.equal(limiter.take("busy"), 0);
  for (let i = 0; i < 10_500; i++) {
    limiter.take(`flood-${i}`);
    if (i % 1000 === 0) limiter.take("busy");
  }
  now += 1;
  assert.ok(limiter.take("busy") > 0, "a recently used, empty bucket survived the pruning");
});
