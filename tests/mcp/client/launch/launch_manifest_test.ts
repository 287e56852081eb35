/** The launch manifest: RFC 8785 canonical JSON (checked against the RFC's examples) and its digest. */
import assert from "node:assert/strict";
import {
  canonicalJson,
  launchManifest,
  manifestDigest,
  manifestDigestV1,
} from "../../../../src/mcp/client/launch/launch_manifest.ts";
import { stdioServer } from "../launch_setup.ts";

Deno.test("JCS: RFC 8785 §3.2.2 example (numbers, escaping, literals)", () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
      ' "literals": [null, true, false]}',
  );
  assert.equal(
    canonicalJson(input),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
      '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

Deno.test("JCS: RFC 8785 §3.2.3 property sorting by UTF-16 code units", () => {
  const input = JSON.parse(
    '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",' +
      ' "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
      ' "\\u00f6": "Latin Small Letter O With Diaeresis"}',
  );
  const keys = [...canonicalJson(input).matchAll(/"([^"]*)":"/g)].map((m) => m[1]);
  assert.deepEqual(keys, ["\\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
});

Deno.test("JCS: nested structures sort at every level and drop insignificant whitespace", () => {
  const input = JSON.parse(
    '{"1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0}, "10": { }, "": "empty", "a": { }, "111": [ { } ], "A": { }}',
  );
  assert.equal(
    canonicalJson(input),
    '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}',
  );
});

Deno.test("manifest v2: version, env values as written (never expanded), allow_env sorted, cwd null when unset", () => {
  const server = stdioServer({
    name: "files",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-filesystem", "~/notes"],
    env: { ZED: "${Z}", ALPHA: "literal-value" },
    allow_env: ["PATH", "NODE_OPTIONS", "PATH"],
  });
  const manifest = launchManifest(server);
  assert.deepEqual(manifest, {
    v: 2,
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-filesystem", "~/notes"],
    env: { ALPHA: "literal-value", ZED: "${Z}" },
    allow_env: ["NODE_OPTIONS", "PATH"],
    cwd: null,
    sandbox_profile: "restricted",
    network: false,
  });
  const text = canonicalJson(manifest);
  assert.ok(text.includes('"ZED":"${Z}"'), "the reference itself is signed, not its value");
  assert.ok(text.includes('"ALPHA":"literal-value"'));
});

/** sha256sum's hex digest of `text`: the digest as any tool computes it. */
async function sha256sum(text: string): Promise<string> {
  const out = new Deno.Command("sha256sum", { stdin: "piped", stdout: "piped" }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  return new TextDecoder().decode((await out.output()).stdout).split(" ")[0];
}

Deno.test("manifest digest: sha256 of the canonical text, as any tool computes it (the documented example)", async () => {
  const server = stdioServer({
    name: "x",
    command: "npx",
    args: ["-y", "pkg"],
    env: { API_KEY: "${PKG_API_KEY}", LOG_LEVEL: "info" },
  });
  // docs/upstream.md#the-format shows this very object, spread out.
  const text =
    '{"allow_env":[],"args":["-y","pkg"],"command":"npx","cwd":null,"env":{"API_KEY":"${PKG_API_KEY}","LOG_LEVEL":"info"},"network":false,"sandbox_profile":"restricted","v":2}';
  assert.equal(canonicalJson(launchManifest(server)), text);
  assert.equal(await manifestDigest(server), `sha256:${await sha256sum(text)}`);
});

Deno.test("manifest v1 digest: today's names-only form, kept only to recognise old signatures", async () => {
  const server = stdioServer({ name: "x", command: "npx", args: ["-y", "pkg"], env: { K: "1" } });
  // The canonical v1 text, as engram signed it before manifest v2.
  const v1 =
    '{"args":["-y","pkg"],"command":"npx","cwd":null,"env_keys":["K"],"network":false,"sandbox_profile":"restricted"}';
  assert.equal(await manifestDigestV1(server), `sha256:${await sha256sum(v1)}`);
  assert.equal(
    await manifestDigestV1({ ...server, env: { K: "2" } }),
    await manifestDigestV1(server),
  );
  assert.notEqual(await manifestDigest(server), await manifestDigestV1(server));
});

Deno.test("manifest digest: changes with every launch field and every env value, not with governance", async () => {
  const base = stdioServer({ name: "x", command: "npx", args: ["a"], env: { K: "1" } });
  const digest = await manifestDigest(base);
  const variants = [
    { ...base, command: "node" },
    { ...base, args: ["b"] },
    { ...base, args: ["a", ""] },
    { ...base, env: { K: "1", L: "2" } },
    { ...base, env: { K: "other value" } },
    { ...base, env: { K: "${K}" } },
    { ...base, allow_env: ["NODE_OPTIONS"] },
    { ...base, cwd: "/srv" },
    { ...base, sandbox_profile: "standard" as const },
    { ...base, network: true },
  ];
  for (const v of variants) assert.notEqual(await manifestDigest(v), digest, JSON.stringify(v));
  for (
    const same of [
      { ...base, client_consent: "approved" as const, enabled: false, trust: "verified" as const },
      { ...base, stdio_allowed_commands: ["npx"] },
    ]
  ) assert.equal(await manifestDigest(same), digest);
  assert.match(digest, /^sha256:[0-9a-f]{64}$/);
});
