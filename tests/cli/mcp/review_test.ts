/**
 * @module `engram mcp review` and `engram mcp keys list | remove` through the real CLI, with fixture
 * upstreams as real subprocesses: off a terminal without --yes it shows the launch (with engram's
 * recommendations and dangerous loader keys) and changes nothing; a start that fails shows the end
 * of its stderr and the DNS hint, and leaves the server disabled; a config-file server gets the
 * lines to paste and goes on once they are there; a team's `mcp.review_keys` stops review from
 * signing with the operator's key; the operator's key is listed and removed.
 */
import assert from "node:assert/strict";
import { BWRAP, UPSTREAM_DIR } from "../../mcp/client/launch_setup.ts";
import { type CliResult, runEngram, tempDir } from "../../helpers.ts";
import { assertFails, exists } from "../_util.ts";
import { FIXTURE } from "../_signed_upstreams.ts";

/** A data dir where `servers` (an `mcpServers` object) were imported; `run` runs `engram mcp …`. */
async function imported(servers: Record<string, unknown>, yaml?: string) {
  const dir = await tempDir("engram-review-");
  if (yaml !== undefined) {
    await Deno.mkdir(`${dir.path}/config`);
    await Deno.writeTextFile(`${dir.path}/config/engram.yaml`, yaml);
  }
  const run = (args: string[]): Promise<CliResult> =>
    runEngram(["mcp", ...args], { dataDir: dir.path });
  await Deno.writeTextFile(`${dir.path}/claude.json`, JSON.stringify({ mcpServers: servers }));
  const r = await run(["import", "claude.json"]);
  assert.equal(r.code, 0, r.stderr);
  return {
    dir: dir.path,
    run,
    keyFile: `${dir.path}/xdg-config/engram/engram-review-key.pem`,
    server: async (name: string) =>
      (JSON.parse((await run(["servers", "--json"])).stdout) as Record<string, unknown>[])
        .find((s) => s.name === name)!,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

Deno.test("mcp review off a terminal without --yes shows the launch and changes nothing (exit 2)", async () => {
  await using s = await imported({
    everything: {
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { NODE_OPTIONS: "--require ./evil.cjs" },
    },
  });
  const before = await s.server("everything");
  const r = await s.run(["review", "everything", "--sandbox", "standard", "--network"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^engram: review changes everything .*: off a terminal, pass --yes to go on with the flags given; nothing was changed\n$/,
  );
  assert.match(r.stdout, /^1\. the launch of everything \(import\) as it runs now:$/m);
  assert.match(r.stdout, /^ {2}sandbox: restricted\n {2}network: off$/m);
  assert.match(
    r.stdout,
    /^ {2}recommended: npx -y fetches the package on its first start, and network is off; engram mcp review everything --network$/m,
  );
  // The import made the literal a reference; review shows where the value comes from, never it.
  assert.match(
    r.stdout,
    /^ {2}env NODE_OPTIONS: from \$\{ENGRAM_IMPORT_EVERYTHING_NODE_OPTIONS\} \(NOT set\)$/m,
  );
  assert.match(
    r.stdout,
    /^ {4}DANGEROUS: NODE_OPTIONS steers a loader or interpreter \(node adds its flags.*refused by rule env_loader unless allow_env names it$/m,
  );
  assert.ok(!r.stdout.includes("evil.cjs"), "a value is never printed");
  assert.match(
    r.stdout,
    /^2\. the launch you chose \(sandbox_profile: restricted → standard; network: false → true\):$/m,
  );
  assert.deepEqual(await s.server("everything"), before, "nothing changed");
  assert.equal(await exists(s.keyFile), false, "no key was created");
  const keys = JSON.parse((await s.run(["keys", "list", "--json"])).stdout);
  assert.deepEqual(keys.keys, []);
  // A bad flag is a usage error before anything is shown.
  assertFails(
    await s.run(["review", "everything", "--sandbox", "none", "--yes"]),
    2,
    /--sandbox must be restricted or standard, not "none"; see: engram mcp review --help/,
  );
});

Deno.test("mcp review shows the value as written of every loader key it would sign", async () => {
  await using s = await imported({
    everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
  });
  const set = await s.run([
    "set",
    "everything",
    "env.NODE_OPTIONS=--require /srv/evil.cjs",
    "env.PYTHONPATH=${EVIL_PATH}",
    "allow_env=NODE_OPTIONS,PYTHONPATH",
  ]);
  assert.equal(set.code, 0, set.stderr);
  const r = await s.run(["review", "everything", "--sandbox", "standard", "--network"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stdout,
    /^ {2}env NODE_OPTIONS: a literal value written in the entry\n {4}value as written: "--require \/srv\/evil\.cjs"\n {4}DANGEROUS: NODE_OPTIONS steers a loader or interpreter \(.*\); allow_env names it, so it runs with the value above$/m,
  );
  // A ${VAR} in a key allow_env names: shown as written, and refused by env_loader.
  assert.match(
    r.stdout,
    /^ {2}env PYTHONPATH: from \$\{EVIL_PATH\} \(NOT set\)\n {4}value as written: "\$\{EVIL_PATH\}"\n {4}DANGEROUS: PYTHONPATH .*allow_env names it, but its value comes from engram's environment at each start, unsigned: refused by rule env_loader; write the value literally$/m,
  );
});

Deno.test("mcp review: a start that fails shows the end of its stderr and the DNS fix, and leaves it disabled", async () => {
  // Under bubblewrap without network the fix is --network; where bubblewrap cannot run, the
  // standard sandbox shares the host's network and the fix is about DNS itself.
  await using s = await imported({
    dnsfail: { command: "deno", args: ["run", "-q", "stderr_failure.ts", "dns"] },
  });
  const where = BWRAP.ok
    ? ["--cwd", UPSTREAM_DIR]
    : ["--sandbox", "standard", "--cwd", UPSTREAM_DIR];
  const r = await s.run(["review", "dnsfail", ...where, "--yes"]);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /^4\. dnsfail did not start: initialize failed: /m);
  assert.match(
    r.stdout,
    /^ {3}its stderr ends with:\n {3}\| npm error code EAI_AGAIN\n {3}\| npm error syscall getaddrinfo\n/m,
  );
  assert.match(
    r.stdout,
    BWRAP.ok
      ? /^ {3}fix: give it network \(set network: true, or: engram mcp review dnsfail --network\)/m
      : /^ {3}fix: check this machine's DNS and network/m,
  );
  assert.match(
    r.stdout,
    /^ {3}dnsfail is left disabled; run engram mcp review dnsfail again with the fix$/m,
  );
  const server = await s.server("dnsfail");
  assert.equal(server.enabled, false);
  assert.equal(server.client_consent, "approved");
  assert.equal(
    server.status,
    "disabled",
    "every launch rule passes: it was signed and allowlisted",
  );
  const report = JSON.parse((await s.run(["report", "--json"])).stdout);
  const changes = report.operator_actions.filter((a: { command: string }) =>
    a.command === "mcp review"
  ).flatMap((a: { changes: string[] }) => a.changes);
  for (
    const expected of [
      /^created the operator's review key .*engram-review-key\.pem \(mode 0600\)$/,
      /^trusted the operator's review key ed25519:/,
      /^added "deno" to its stdio_allowed_commands$/,
      /^signed the launch \(manifest v2, sha256:/,
      /^client_consent: pending → approved$/,
      /^enabled: false → true$/,
      /^did not start \(initialize\): disabled again$/,
    ]
  ) {
    assert.ok(
      changes.some((c: string) => expected.test(c)),
      `${expected} in ${changes.join("\n")}`,
    );
  }
  assert.equal((await Deno.stat(s.keyFile)).mode! & 0o777, 0o600);
});

Deno.test("mcp review: a config-file server gets the lines to paste and stops; pasted, review goes on", async () => {
  const yaml = [
    "mcp:",
    "  mcp_servers:",
    "    - name: files",
    "      transport: stdio",
    "      command: deno",
    `      args: ["run", "-q", ${JSON.stringify(FIXTURE("well_behaved"))}]`,
    "      client_consent: pending",
    "",
  ].join("\n");
  await using s = await imported({}, yaml);
  const file = `${s.dir}/config/engram.yaml`;
  const first = await s.run(["review", "files", "--sandbox", "standard", "--yes"]);
  assert.equal(first.code, 1, first.stderr + first.stdout);
  assert.ok(
    first.stdout.includes(
      `files is defined in ${file}:3, which review does not edit; paste into its entry (replacing these keys where it has them):\n\n`,
    ),
    first.stdout,
  );
  const pasted = first.stdout.split("\n").filter((l) => l.startsWith("      "));
  assert.deepEqual(pasted.map((l) => l.trim().split(":")[0]), [
    "sandbox_profile",
    "stdio_allowed_commands",
    "manifest_digest",
    "manifest_signature",
    "client_consent",
  ]);
  assert.match(first.stdout, /^then run again: engram mcp review files --yes$/m);
  assert.equal(await Deno.readTextFile(file), yaml, "the config file is never edited");
  assert.equal((await s.server("files")).client_consent, "pending");

  // Pasted (the consent line replaces the entry's own), review goes on.
  await Deno.writeTextFile(
    file,
    yaml.replace("      client_consent: pending\n", "") + pasted.join("\n") + "\n",
  );
  const second = await s.run([
    "review",
    "files",
    "--sandbox",
    "standard",
    "--approve",
    "ech?",
    "--approve",
    "greet",
    "--expose",
    "read",
    "--yes",
    "--json",
  ]);
  assert.equal(second.code, 0, second.stderr + second.stdout);
  const account = JSON.parse(second.stdout);
  assert.deepEqual(account.steps.map((x: { step: string }) => x.step), [
    "launch",
    "choice",
    "sign",
    "start",
    "capabilities",
  ]);
  assert.deepEqual(account.steps[2].changes, [], "already signed by the operator's trusted key");
  const last = account.steps[4];
  assert.deepEqual(last.approved, [{ kind: "tool", name: "echo" }, {
    kind: "prompt",
    name: "greet",
  }]);
  assert.deepEqual(last.exposed, ["mcp_files_echo", "mcp_files_greet"]);
  assert.equal(last.undo, "engram mcp disable files");
  // A glob that names nothing is refused before anything is approved.
  const none = await s.run(["review", "files", "--approve", "nope*", "--yes"]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /--approve "nope\*" names nothing files lists \(add, .*echo.*greet.*\); nothing was approved/,
  );
});

Deno.test("mcp review: with mcp.review_keys set, only those keys count and review refuses to sign with the operator's", async () => {
  const team = "ed25519:" + btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
  await using s = await imported(
    { tool: { command: "deno", args: ["run", "-q", "server.ts"] } },
    `mcp:\n  review_keys: ["${team}"]\n`,
  );
  const file = `${s.dir}/config/engram.yaml`;
  const before = await s.server("tool");
  let r = await s.run(["review", "tool", "--sandbox", "standard", "--yes"]);
  assert.equal(r.code, 1, r.stdout);
  assert.match(
    r.stderr,
    new RegExp(
      `mcp\\.review_keys in ${file} lists 1 key\\(s\\), and only those count; the operator's review key \\(.*engram-review-key\\.pem\\) does not exist and is not one of them, so review does not sign tool: sign with a listed key`,
    ),
  );
  assert.equal(await exists(s.keyFile), false, "no key is created that could not count");
  // An operator key that exists but is not listed is named, and not used either.
  assert.equal((await s.run(["keys", "generate"])).code, 0);
  r = await s.run(["review", "tool", "--sandbox", "standard", "--yes"]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /the operator's review key ed25519:\S+ \(.*\) is not one of them, so review does not sign tool/,
  );
  assert.deepEqual(await s.server("tool"), before, "nothing changed");
  const keys = JSON.parse((await s.run(["keys", "list", "--json"])).stdout);
  assert.equal(keys.counted, "config");
  assert.deepEqual(keys.keys.map((k: { key: string }) => k.key), [team]);
});

Deno.test("mcp keys list and remove: the operator's key trusted by review, and what removing it blocks", async () => {
  await using s = await imported({
    script: { command: "deno", args: ["run", "-q", "stderr_failure.ts", "dns"] },
  });
  const empty = await s.run(["keys", "list"]);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /^no review key is trusted; engram mcp review NAME creates/);
  // Signed and trusted in step 3; the start then fails, which does not matter here.
  await s.run(["review", "script", "--sandbox", "standard", "--cwd", UPSTREAM_DIR, "--yes"]);
  const listed = JSON.parse((await s.run(["keys", "list", "--json"])).stdout);
  assert.equal(listed.counted, "database");
  assert.equal(listed.keys.length, 1);
  const [key] = listed.keys;
  assert.equal(key.source, "database");
  assert.equal(key.counts, true);
  assert.equal(key.file, s.keyFile);
  const text = await s.run(["keys", "list"]);
  assert.match(
    text.stdout,
    new RegExp(`^${key.key.replace(/[+/]/g, "\\$&")}\\s+database\\s+yes\\s+`, "m"),
  );
  assert.equal((await s.server("script")).blocked, null);

  const removed = await s.run(["keys", "remove", key.key]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(
    removed.stdout,
    /^removed review key ed25519:.*: launches only it signed are blocked until signed again/,
  );
  const blocked = (await s.server("script")).blocked as { rule: string; detail: string };
  assert.equal(blocked.rule, "manifest_signature");
  assertFails(
    await s.run(["keys", "remove", key.key]),
    1,
    `review key ${key.key} is not trusted here; list them with: engram mcp keys list`,
  );
  assertFails(
    await s.run(["keys", "remove", "not-a-key"]),
    2,
    /"not-a-key" is not a review key \(ed25519:<base64>\)/,
  );
});
