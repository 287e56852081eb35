/** @module Tests for the SSRF address policy: a table of addresses and host names. */
import assert from "node:assert/strict";
import {
  blockedReason,
  formatIp,
  isBlockedAddress,
  isBlockedHostname,
  normalizeHost,
  parseIp,
} from "../../src/ingest/address_policy.ts";

/** [address, expected reason (null = allowed)]. */
const TABLE: readonly (readonly [string, string | null])[] = [
  // IPv4 public
  ["8.8.8.8", null],
  ["93.184.216.34", null],
  ["1.1.1.1", null],
  ["172.15.255.255", null],
  ["172.32.0.1", null],
  ["100.63.255.255", null],
  ["100.128.0.0", null],
  ["223.255.255.255", null],
  // IPv4 blocked
  ["127.0.0.1", "a loopback"],
  ["127.255.255.254", "a loopback"],
  ["10.0.0.1", "a private"],
  ["10.255.255.255", "a private"],
  ["172.16.0.1", "a private"],
  ["172.31.255.255", "a private"],
  ["192.168.1.1", "a private"],
  ["169.254.0.1", "a link-local"],
  ["169.254.169.254", "a link-local (cloud metadata)"],
  ["0.0.0.0", "an unspecified"],
  ["0.1.2.3", "an unspecified"],
  ["100.64.0.1", "a shared (CGNAT)"],
  ["100.127.255.255", "a shared (CGNAT)"],
  ["224.0.0.1", "a multicast"],
  ["239.255.255.250", "a multicast"],
  ["255.255.255.255", "a broadcast"],
  ["240.0.0.1", "a reserved"],
  ["192.0.0.170", "a reserved (IETF protocol)"],
  ["198.18.0.1", "a reserved (benchmarking)"],
  // IPv6 public
  ["2606:4700:4700::1111", null],
  ["2001:4860:4860::8888", null],
  ["[2a00:1450:4001:82a::200e]", null],
  ["::ffff:8.8.8.8", null],
  ["64:ff9b::808:808", null],
  ["2002:0808:0808::1", null],
  // IPv6 blocked
  ["::1", "a loopback"],
  ["[::1]", "a loopback"],
  ["0:0:0:0:0:0:0:1", "a loopback"],
  ["::", "an unspecified"],
  ["0000:0000:0000:0000:0000:0000:0000:0000", "an unspecified"],
  ["fe80::1", "a link-local"],
  ["fe80::1%eth0", "a link-local"],
  ["febf:ffff::1", "a link-local"],
  ["fc00::1", "a unique-local"],
  ["fd12:3456:789a::1", "a unique-local"],
  ["fec0::1", "a private (site-local)"],
  ["ff02::1", "a multicast"],
  // IPv4 inside IPv6
  ["::ffff:127.0.0.1", "a loopback (IPv4-mapped)"],
  ["[::ffff:127.0.0.1]", "a loopback (IPv4-mapped)"],
  ["::ffff:7f00:1", "a loopback (IPv4-mapped)"],
  ["0:0:0:0:0:ffff:a9fe:a9fe", "a link-local (cloud metadata) (IPv4-mapped)"],
  ["::ffff:10.1.2.3", "a private (IPv4-mapped)"],
  ["::ffff:0:192.168.0.1", "a private (IPv4-translated)"],
  ["::127.0.0.1", "a loopback (IPv4-compatible)"],
  ["64:ff9b::127.0.0.1", "a loopback (NAT64)"],
  ["64:ff9b::a9fe:a9fe", "a link-local (cloud metadata) (NAT64)"],
  ["64:ff9b:1::a00:1", "a local-use NAT64"],
  ["2002:7f00:0001::", "a loopback (6to4)"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "a loopback (Teredo)"],
  // Not addresses at all: fail closed.
  ["", "an unrecognized"],
  ["example.com", "an unrecognized"],
  ["1.2.3", "an unrecognized"],
  ["1.2.3.256", "an unrecognized"],
  ["010.0.0.1", "an unrecognized"],
  ["1::2::3", "an unrecognized"],
  ["1:2:3:4:5:6:7:8:9", "an unrecognized"],
  ["12345::1", "an unrecognized"],
  ["::ffff:1.2.3", "an unrecognized"],
];

Deno.test("address policy: every table row is classified as expected", () => {
  for (const [address, expected] of TABLE) {
    assert.equal(blockedReason(address), expected, `blockedReason(${JSON.stringify(address)})`);
    assert.equal(isBlockedAddress(address), expected !== null, `isBlockedAddress(${address})`);
  }
});

Deno.test("address policy: parseIp handles compressed, bracketed and embedded forms", () => {
  const cases: readonly (readonly [string, string | null])[] = [
    ["127.0.0.1", "127.0.0.1"],
    ["[::1]", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8::", "2001:db8::"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ["1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8"],
    ["fe80::1%en0", "fe80::1"],
    ["not-an-ip", null],
    ["[127.0.0.1", null],
  ];
  for (const [text, canonical] of cases) {
    const ip = parseIp(text);
    assert.equal(ip ? formatIp(ip) : null, canonical, `parseIp(${text})`);
  }
  assert.equal(parseIp("10.0.0.1")?.version, 4);
  assert.equal(parseIp("::1")?.version, 6);
  assert.equal(parseIp("::1")?.bytes.length, 16);
});

Deno.test("address policy: metadata and localhost names are blocked by name", () => {
  const names: readonly (readonly [string, boolean])[] = [
    ["metadata.google.internal", true],
    ["METADATA.GOOGLE.INTERNAL.", true],
    ["metadata", true],
    ["metadata.goog", true],
    ["instance-data.ec2.internal", true],
    ["localhost", true],
    ["app.localhost", true],
    ["example.com", false],
    ["metadata.example.com", false],
    ["notlocalhost", false],
  ];
  for (const [name, blocked] of names) {
    assert.equal(isBlockedHostname(name), blocked, `isBlockedHostname(${name})`);
  }
});

Deno.test("address policy: normalizeHost makes spellings of one host equal", () => {
  assert.equal(normalizeHost("Example.COM."), "example.com");
  assert.equal(normalizeHost("0:0::1"), "::1");
  assert.equal(normalizeHost("[::1]"), "::1");
  assert.equal(normalizeHost("127.0.0.1"), "127.0.0.1");
});
