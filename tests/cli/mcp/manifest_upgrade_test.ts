/**
 * @module The move from launch manifest v1 to v2 through the real CLI: a config and a database of
 * approvals written under v1 (env names only) — the server is blocked by the named rule
 * `manifest_version`, `engram mcp sign --all` shows every env value and, confirmed, signs again what
 * was signed as configured and leaves a changed launch for review, and the approvals carry over
 * when an operator signs (and on export, for a launch signed under v2) — never on discovery —
 * while `approvals verify` says why an old lockfile drifted. And the attack v1 allowed: a loader
 * key's value changed after a v1 review (v1 covered no value, nor allow_env) is not signed.
 */
import assert from "node:assert/strict";
import type { CapabilityApproval } from "../../../src/core/ports/approval_store.ts";
import { pinCapability } from "../../../src/mcp/client/approvals/capability_pins.ts";
import {
  lockfileText,
  parseLockfile,
} from "../../../src/mcp/client/approvals/approvals_lockfile.ts";
import { manifestDigestV1 } from "../../../src/mcp/client/launch/launch_manifest.ts";
import { generateReviewKey, readPrivateKey } from "../../../src/mcp/client/launch/review_keys.ts";
import { tempDir } from "../../helpers.ts";
import {
  fixtureLaunch,
  type FixtureServer,
  NO_CHANGES,
  signedConfig,
  upstreamSetup,
  WELL,
} from "../_signed_upstreams.ts";

/** A second server whose launch changes after it was signed. */
const OTHER: FixtureServer = { ...WELL, name: "other", args: ["--name", "a"] };

/** The states `approvals files --json` reports, by `kind name`. */
async function states(run: (args: string[]) => Promise<{ stdout: string; stderr: string }>) {
  const out = await run(["approvals", "files", "--json"]);
  return Object.fromEntries(
    (JSON.parse(out.stdout) as { kind: string; name: string; state: string }[]).map((
      s,
    ) => [`${s.kind} ${s.name}`, s.state]),
  );
}

/** Approvals as an engram before manifest v2 pinned them: against the v1 digest of the launch. */
async function asV1(
  approvals: CapabilityApproval[],
  server: FixtureServer = WELL,
): Promise<CapabilityApproval[]> {
  const v1 = await manifestDigestV1(fixtureLaunch(server));
  return await Promise.all(approvals.map(async (a) => ({
    ...a,
    identity: v1,
    pin: (await pinCapability({ kind: a.kind, name: a.name, definition: a.definition }, v1)).pin,
  })));
}

Deno.test("manifest v1 → v2: blocked by name, sign --all re-signs what was reviewed, approvals carry over", async () => {
  await using keys = await tempDir();
  const keyFile = (await generateReviewKey(`${keys.path}/reviewer.pem`)).file;
  const signer = await readPrivateKey(keyFile);
  await using s = await upstreamSetup([WELL, OTHER], { env: NO_CHANGES, signer });
  const config = `${s.dir}/config/engram.yaml`;
  // Today's approvals, exported, then written back as an older engram stored them.
  await s.approve("files", { echo: "read" });
  assert.equal((await s.run(["approvals", "export", "today.json"])).code, 0);
  const today = parseLockfile(await Deno.readTextFile(`${s.dir}/today.json`), "today.json");
  await Deno.writeTextFile(`${s.dir}/v1-lock.json`, lockfileText(await asV1(today)));
  const v1Config = await signedConfig([WELL, OTHER], [], { signer, manifest: 1 });
  // `other` changed after its review: its v1 signature no longer matches its launch.
  await Deno.writeTextFile(config, v1Config.replace('"--name","a"', '"--name","b"'));
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);

  const servers = await s.run(["servers", "--json"]);
  const files = JSON.parse(servers.stdout).find((x: { name: string }) => x.name === "files");
  assert.equal(files.blocked.rule, "manifest_version");
  const text = await s.run(["servers"]);
  assert.match(
    text.stdout,
    /files: blocked by rule manifest_version: signed under manifest v1, which does not cover env values; fix: re-review with engram mcp review files \(or sign it again: engram mcp sign files --key FILE; engram mcp sign --all --key FILE signs every reviewed server\)/,
  );

  // Off a terminal without --yes: every env value shown, nothing signed, nothing carried.
  const unconfirmed = await s.run(["sign", "--all", "--key", keyFile]);
  assert.equal(unconfirmed.code, 2, unconfirmed.stderr);
  assert.match(
    unconfirmed.stderr,
    /^engram: sign --all would sign 1 launch\(es\) under manifest v2 \(above\): pass --yes to sign them; nothing was changed\n$/,
  );
  assert.match(
    unconfirmed.stdout,
    new RegExp(
      `^files \\(${config}:\\d+\\):\n {2}command: "deno" \\[.*\\]\n {2}env "UPSTREAM_CHANGES": "\\$\\{UPSTREAM_CHANGES\\}"$`,
      "m",
    ),
  );
  assert.ok(!unconfirmed.stdout.includes("manifest_signature"), "no signature printed");
  const json = await s.run(["sign", "--all", "--key", keyFile, "--json"]);
  assert.equal(json.code, 2);
  assert.match(json.stderr, /run it without --json to see every env value it covers\): pass --yes/);
  assert.equal((await s.run(["approvals", "export", "before.json"])).code, 0);
  const before = parseLockfile(await Deno.readTextFile(`${s.dir}/before.json`), "before.json");
  assert.deepEqual(
    before.map((a) => a.identity),
    [await manifestDigestV1(fixtureLaunch(WELL))],
    "the pins are still v1",
  );

  const signing = await s.run(["sign", "--all", "--key", keyFile, "--yes"]);
  assert.equal(signing.code, 0, signing.stderr);
  assert.match(
    signing.stdout,
    /^files: signed under manifest v2, covering env UPSTREAM_CHANGES="\$\{UPSTREAM_CHANGES\}"; 1 approval\(s\) carried over$/m,
  );
  assert.match(
    signing.stdout,
    new RegExp(`^  paste into the entry of files \\(${config}:\\d+\\):$`, "m"),
  );
  assert.match(
    signing.stdout,
    /^other: not signed: its signature is not one of this launch by a key in mcp.review_keys \(changed since it was signed\?\); review it: engram mcp review other$/m,
  );
  // Paste the two lines of files into its entry.
  const digest = /manifest_digest: "(sha256:[0-9a-f]{64})"/.exec(signing.stdout)![1];
  const signature = /manifest_signature: "([^"]+)"/.exec(signing.stdout)![1];
  const [head, tail] = (await Deno.readTextFile(config)).split("    - name: other");
  await Deno.writeTextFile(
    config,
    head.replace(/manifest_digest: "[^"]+"/, `manifest_digest: "${digest}"`)
      .replace(/manifest_signature: "[^"]+"/, `manifest_signature: "${signature}"`) +
      "    - name: other" + tail,
  );
  // Carried on signing: the tool is approved against the v2 launch, without a new approval.
  assert.equal((await states(s.run))["tool echo"], "approved");
  const again = await s.run(["sign", "--all", "--key", keyFile, "--json"]);
  assert.deepEqual(JSON.parse(again.stdout).current, ["files"]);

  // The committed v1 lockfile: verify says why it drifted and what rewrites it.
  const verify = await s.run(["approvals", "verify", "--lock", "v1-lock.json", "--json"]);
  assert.equal(verify.code, 1);
  assert.deepEqual(JSON.parse(verify.stdout).drift.map((d: { detail: string }) => d.detail), [
    "pinned under launch manifest v1: the server's identity moved to manifest v2, which covers env values; its definition is unchanged, so the pin carries over: rewrite the lockfile with engram mcp approvals export FILE",
  ]);

  // A database still at v1 (a launch signed again elsewhere): never carried on discovery.
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);
  assert.notEqual((await states(s.run))["tool echo"], "approved");

  // Export carries them, the launch being signed under v2 by a counted key, and rewrites the file.
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);
  const exported = await s.run(["approvals", "export", "v2-lock.json"]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /1 pin\(s\) made under launch manifest v1 carried over to v2/);
  const holds = await s.run(["approvals", "verify", "--lock", "v2-lock.json"]);
  assert.equal(holds.code, 0, holds.stdout + holds.stderr);
});

Deno.test("manifest v1 → v2: a loader key's value changed after a v1 review is not signed by sign --all, nor its approvals carried", async () => {
  await using keys = await tempDir();
  const keyFile = (await generateReviewKey(`${keys.path}/reviewer.pem`)).file;
  const signer = await readPrivateKey(keyFile);
  // Reviewed under v1 with a harmless NODE_OPTIONS, and LOG_LEVEL in allow_env on another.
  const reviewed: FixtureServer = {
    ...WELL,
    env: { ...WELL.env, NODE_OPTIONS: "--max-old-space-size=512" },
  };
  const allowing: FixtureServer = { ...WELL, name: "other", env: { LOG_LEVEL: "info" } };
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES, signer });
  const config = `${s.dir}/config/engram.yaml`;
  await s.approve("files", { echo: "read" });
  assert.equal((await s.run(["approvals", "export", "today.json"])).code, 0);
  const today = parseLockfile(await Deno.readTextFile(`${s.dir}/today.json`), "today.json");
  await Deno.writeTextFile(`${s.dir}/v1-lock.json`, lockfileText(await asV1(today, reviewed)));
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);
  // The attack: the value changed and allow_env added, which v1 covers neither of.
  const v1 = await signedConfig([reviewed, allowing], [], { signer, manifest: 1 });
  const attacked = v1.replace("--max-old-space-size=512", "--require /tmp/evil.cjs")
    .replace(
      "    - name: other\n",
      "    - name: other\n      allow_env: [LOG_LEVEL]\n",
    )
    .replace(
      "client_consent: approved\n",
      "client_consent: approved\n      allow_env: [NODE_OPTIONS]\n",
    );
  assert.notEqual(attacked, v1);
  await Deno.writeTextFile(config, attacked);
  const blocked = JSON.parse((await s.run(["servers", "--json"])).stdout) as {
    name: string;
    blocked: { rule: string };
  }[];
  // The v1 signature still holds for the changed launch: only the version rule stops it.
  assert.deepEqual(blocked.map((b) => [b.name, b.blocked.rule]), [
    ["files", "manifest_version"],
    ["other", "manifest_version"],
  ]);

  const signing = await s.run(["sign", "--all", "--key", keyFile, "--yes"]);
  assert.equal(signing.code, 0, signing.stderr);
  assert.match(
    signing.stdout,
    /^files: not signed: its env has NODE_OPTIONS, which steers a loader or interpreter, so sign --all leaves it for a review that shows those values; review it: engram mcp review files$/m,
  );
  assert.match(
    signing.stdout,
    /^other: not signed: its allow_env names LOG_LEVEL, so sign --all leaves it for a review that shows those values; review it: engram mcp review other$/m,
  );
  assert.ok(!/signed under manifest v2|manifest_signature/.test(signing.stdout), signing.stdout);
  assert.equal(await Deno.readTextFile(config), attacked, "the config is as it was");
  // Neither sign --all, nor discovery, nor export moved the approval to the changed launch.
  await s.run(["discover", "files"]);
  assert.equal((await s.run(["approvals", "export", "after.json"])).code, 0);
  const after = parseLockfile(await Deno.readTextFile(`${s.dir}/after.json`), "after.json");
  assert.deepEqual(after.map((a) => a.identity), [await manifestDigestV1(fixtureLaunch(reviewed))]);
  const still = JSON.parse((await s.run(["servers", "--json"])).stdout) as {
    name: string;
    blocked: { rule: string };
  }[];
  assert.equal(still.find((b) => b.name === "files")!.blocked.rule, "manifest_version");
});
