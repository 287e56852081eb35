/**
 * @module The move from launch manifest v1 to v2 through the real CLI: a config and a database of
 * approvals written under v1 (env names only) — the server is blocked by the named rule
 * `manifest_version`, `engram mcp sign --all` signs again what was signed as configured and leaves
 * a changed launch for review, and the approvals carry over (on signing, on discovery, on export),
 * while `approvals verify` says why an old lockfile drifted.
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
async function asV1(approvals: CapabilityApproval[]): Promise<CapabilityApproval[]> {
  const v1 = await manifestDigestV1(fixtureLaunch(WELL));
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

  const signing = await s.run(["sign", "--all", "--key", keyFile]);
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

  // A database still at v1 (a launch signed again elsewhere): carried on discovery.
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);
  assert.equal((await states(s.run))["tool echo"], "approved");

  // …and on export, which rewrites the lockfile.
  assert.equal((await s.run(["approvals", "import", "v1-lock.json"])).code, 0);
  const exported = await s.run(["approvals", "export", "v2-lock.json"]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /1 pin\(s\) made under launch manifest v1 carried over to v2/);
  const holds = await s.run(["approvals", "verify", "--lock", "v2-lock.json"]);
  assert.equal(holds.code, 0, holds.stdout + holds.stderr);
});
