/**
 * @module `engram mcp approvals` through the real CLI against a real fixture upstream: approving,
 * each way an approval lapses (description, schema, annotations, rename, launch change), diff, the
 * lockfile round trip and `verify`'s exit code, and the error paths (each one's exit code and
 * message).
 */
import assert from "node:assert/strict";
import { NO_CHANGES, signedConfig, upstreamSetup, WELL } from "../_signed_upstreams.ts";
import { assertFails } from "../_util.ts";

/** The states `approvals --json` reports, by `kind name`. */
async function states(
  run: (args: string[], env?: Record<string, string>) => Promise<{ stdout: string }>,
  changes = "",
) {
  const out = await run(["approvals", "files", "--json"], { UPSTREAM_CHANGES: changes });
  return Object.fromEntries(
    (JSON.parse(out.stdout) as { kind: string; name: string; state: string }[]).map((
      s,
    ) => [`${s.kind} ${s.name}`, s.state]),
  );
}

Deno.test("approvals: pending until approved; every change of a pinned definition lapses it, never auto-approved", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const first = await states(s.run);
  assert.equal(first["tool echo"], "pending");
  assert.equal(first["prompt greet"], "pending");
  assert.equal(first["template notes"], "pending");
  for (const [kind, name] of [["tool", "echo"], ["tool", "add"], ["prompt", "greet"]]) {
    const r = await s.run(["approvals", "approve", "files", name, "--kind", kind], {
      UPSTREAM_CHANGES: "",
    });
    assert.equal(r.code, 0, r.stderr);
  }
  const approved = await states(s.run);
  assert.equal(approved["tool echo"], "approved");
  assert.equal(approved["prompt greet"], "approved");
  for (
    const [change, what] of [
      ["description", "tool echo"],
      ["schema", "tool echo"],
      ["annotations", "tool echo"],
      ["title", "tool echo"],
      ["output-schema", "tool add"],
      ["prompt-arguments", "prompt greet"],
    ]
  ) {
    const after = await states(s.run, change);
    assert.equal(after[what], "changed", `${change} must lapse ${what}`);
    for (const other of ["tool echo", "tool add", "prompt greet"].filter((o) => o !== what)) {
      assert.equal(after[other], "approved", `${change} of ${what} must leave ${other} approved`);
    }
  }
  assert.equal((await states(s.run))["tool echo"], "approved", "back to the approved definition");
  const renamed = await states(s.run, "rename:echo=shout");
  assert.equal(renamed["tool echo"], "missing");
  assert.equal(renamed["tool shout"], "pending");
  const json = await s.run(["approvals", "files", "--json"], {
    UPSTREAM_CHANGES: "rename:echo=shout",
  });
  const shout = JSON.parse(json.stdout).find((x: { name: string }) => x.name === "shout");
  assert.equal(shout.renamed_from, "echo", "a rename is recognised, and must be reviewed again");
});

Deno.test("approvals diff shows what changed; call refuses a lapsed tool and says how to review", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  assert.equal((await s.run(["approvals", "approve", "files", "echo"])).code, 0);
  const diff = await s.run(["approvals", "diff", "files", "echo"], {
    UPSTREAM_CHANGES: "description",
  });
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(diff.stdout, /tool files echo is changed:/);
  assert.match(diff.stdout, /^-\s+"description": "Echoes the given text back\."/m);
  assert.match(diff.stdout, /^\+\s+"description": ".+"/m);
  const call = await s.run(["call", "files", "echo", "--args", '{"text":"x"}'], {
    UPSTREAM_CHANGES: "description",
  });
  assert.equal(call.code, 1);
  assert.match(
    call.stderr,
    /forbidden: upstream files tool echo changed since it was approved \(its approval lapsed\); review it with: engram mcp approvals diff files echo/,
  );
  const ok = await s.run(["call", "files", "echo", "--args", '{"text":"x"}']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), "echo: x");
  const revoke = await s.run(["approvals", "revoke", "files", "echo"]);
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.equal((await states(s.run))["tool echo"], "revoked");
});

Deno.test("approvals: unknown capability and bad options are clear errors", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const unknown = await s.run(["approvals", "approve", "files", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /not_found: files lists no tool, prompt or resource template named "nope"; list them with: engram mcp approvals files/,
  );
  const kind = await s.run(["approvals", "approve", "files", "echo", "--kind", "widget"]);
  assert.equal(kind.code, 2);
  assert.match(kind.stderr, /--kind must be tool, prompt or template/);
  const server = await s.run(["approvals", "approve", "nope", "echo"]);
  assert.equal(server.code, 1);
  assert.match(server.stderr, /no upstream server named "nope".*engram mcp servers/);
  const all = await s.run(["approvals", "approve", "files", "--all-pending"]);
  assert.equal(all.code, 2, "off a terminal, --all-pending needs --yes");
  assert.match(all.stderr, /add --yes/);
  const yes = await s.run(["approvals", "approve", "files", "--all-pending", "--yes"]);
  assert.equal(yes.code, 0, yes.stderr);
  assert.ok(Object.values(await states(s.run)).every((state) => state === "approved"));
});

Deno.test("lockfile: export, import, verify passes, then fails on drift and on a changed launch", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  await s.run(["approvals", "approve", "files", "echo", "--expose", "read"]);
  await s.run(["approvals", "approve", "files", "greet", "--kind", "prompt"]);
  const lock = `${s.dir}/mcp-lock.json`;
  const exported = await s.run(["approvals", "export", "mcp-lock.json"]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /wrote 2 approval\(s\)/);
  const text = await Deno.readTextFile(lock);
  assert.match(text, /"tool:echo": \{/);
  const ok = await s.run(["approvals", "verify", "--lock", "mcp-lock.json"]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /every pin of .*mcp-lock\.json holds \(2 approval\(s\)\)/);
  const drift = await s.run(["approvals", "verify", "--lock", "mcp-lock.json", "--json"], {
    UPSTREAM_CHANGES: "description",
  });
  assert.equal(drift.code, 1);
  const report = JSON.parse(drift.stdout);
  assert.equal(report.ok, false);
  assert.deepEqual(report.drift.map((d: { name: string; drift: string }) => [d.name, d.drift]), [
    ["echo", "changed"],
  ]);
  // Another launch (other args: a re-signed manifest) lapses every pin of the server.
  const original = await Deno.readTextFile(`${s.dir}/config/engram.yaml`);
  await Deno.writeTextFile(
    `${s.dir}/config/engram.yaml`,
    await signedConfig([{ ...WELL, args: ["--name", "relaunched"] }]),
  );
  const relaunched = await s.run(["approvals", "verify", "--lock", "mcp-lock.json", "--json"]);
  assert.equal(relaunched.code, 1);
  assert.deepEqual(
    JSON.parse(relaunched.stdout).drift.map((d: { detail: string }) => d.detail),
    [
      "the server's launch or URL changed since it was pinned",
      "the server's launch or URL changed since it was pinned",
    ],
  );
  await Deno.writeTextFile(`${s.dir}/config/engram.yaml`, original);
  // Import into a fresh database reproduces the approvals.
  await using t = await upstreamSetup([WELL], { env: NO_CHANGES });
  await Deno.copyFile(`${s.dir}/config/engram.yaml`, `${t.dir}/config/engram.yaml`);
  const imported = await t.run(["approvals", "import", lock]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal((await states(t.run))["tool echo"], "approved");
  await Deno.writeTextFile(`${s.dir}/bad-lock.json`, '{\n  "engram_lock": 1,\n  "servers": [\n');
  const bad = await s.run(["approvals", "import", "bad-lock.json"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /lockfile .*bad-lock\.json is not JSON: .* at line 4/);
});

Deno.test("with mcp.approvals_lock the committed file is the source of truth", async () => {
  await using s = await upstreamSetup([WELL], {
    mcpExtra: ["approvals_lock: ../mcp-lock.json"],
    env: NO_CHANGES,
  });
  const approve = await s.run(["approvals", "approve", "files", "echo"]);
  assert.equal(approve.code, 0, approve.stderr);
  assert.match(approve.stdout, /approved tool files echo in .*mcp-lock\.json/);
  assert.match(await Deno.readTextFile(`${s.dir}/mcp-lock.json`), /"tool:echo"/);
  const importing = await s.run(["approvals", "import", "mcp-lock.json"]);
  assert.equal(importing.code, 1);
  assert.match(importing.stderr, /approvals are read from the lockfile/);
  const verify = await s.run(["approvals", "verify"]);
  assert.equal(verify.code, 0, verify.stdout);
});

Deno.test("approvals: revoking what was never approved, a name two kinds share, and a capability the server stopped listing", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  assertFails(
    await s.run(["approvals", "revoke", "files", "echo"]),
    1,
    'engram: not_found: files has no approval of "echo"; list them with: engram mcp approvals files',
  );
  // A tool named like the prompt greet: the name alone does not say which.
  const twin = { UPSTREAM_CHANGES: "add-tool:greet" };
  assertFails(
    await s.run(["approvals", "approve", "files", "greet"], twin),
    2,
    /^engram: files has a (tool and a prompt|prompt and a tool) named "greet"; say which with --kind$/m,
  );
  for (const kind of ["tool", "prompt"]) {
    const r = await s.run(["approvals", "approve", "files", "greet", "--kind", kind], twin);
    assert.equal(r.code, 0, r.stderr);
  }
  assertFails(
    await s.run(["approvals", "revoke", "files", "greet"], twin),
    2,
    /^engram: files has approvals of a (tool and a prompt|prompt and a tool) named "greet"; say which with --kind$/m,
  );
  const one = await s.run(["approvals", "revoke", "files", "greet", "--kind", "tool"], twin);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, "revoked tool files greet\n");
  // Approved once, then no longer listed (renamed): nothing to approve again.
  assert.equal((await s.run(["approvals", "approve", "files", "echo"])).code, 0);
  assertFails(
    await s.run(["approvals", "approve", "files", "echo"], {
      UPSTREAM_CHANGES: "rename:echo=shout",
    }),
    1,
    "engram: conflict: files does not list tool echo now, so there is no definition to approve; see: engram mcp discover files",
  );
});

Deno.test("approvals approve --expose is refused when the config file sets the exposure", async () => {
  await using s = await upstreamSetup([{ ...WELL, extra: ["expose: { tier: read }"] }], {
    env: NO_CHANGES,
  });
  assertFails(
    await s.run(["approvals", "approve", "files", "echo", "--expose", "write"]),
    1,
    /^engram: conflict: the exposure of files echo is set in .*\/config\/engram\.yaml:\d+, and the config file wins; change it there$/m,
  );
  assert.equal((await states(s.run))["tool echo"], "pending", "nothing was approved");
});

Deno.test("approvals usage errors exit 2 and say what the verb takes", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const cases: [string[], string][] = [
    [["approve", "files"], "approve takes SERVER and NAME, or SERVER --all-pending"],
    [
      ["approve", "files", "echo", "--all-pending"],
      "approve takes SERVER and NAME, or SERVER --all-pending",
    ],
    [
      ["approve", "files", "echo", "--expose", "root"],
      '--expose must be read, write, admin or none, not "root"',
    ],
    [["revoke", "files"], "revoke takes SERVER and NAME"],
    [["diff", "files"], "diff takes SERVER and NAME"],
    [["export"], "export takes FILE"],
    [["import"], "import takes FILE"],
  ];
  for (const [args, message] of cases) {
    const r = await s.run(["approvals", ...args]);
    assertFails(r, 2, `engram: ${message}; see: engram mcp approvals --help\n`);
  }
});

Deno.test("lockfile errors: an unwritable or unreadable file, a missing one, and verify with no lockfile", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  assertFails(
    await s.run(["approvals", "export", "nodir/x.json"]),
    2,
    new RegExp(`^engram: cannot write lockfile ${s.dir}/nodir/x\\.json: .+`, "m"),
  );
  await Deno.mkdir(`${s.dir}/adir`);
  assertFails(
    await s.run(["approvals", "import", "adir"]),
    2,
    new RegExp(`^engram: cannot read lockfile ${s.dir}/adir: .+`, "m"),
  );
  assertFails(
    await s.run(["approvals", "import", "missing.json"]),
    1,
    `engram: not_found: lockfile ${s.dir}/missing.json does not exist; write it with: engram mcp approvals export ${s.dir}/missing.json`,
  );
  assertFails(
    await s.run(["approvals", "verify"]),
    2,
    `engram: verify compares a lockfile with the servers: pass --lock FILE, or set mcp.approvals_lock in the config file ${s.dir}/config/engram.yaml`,
  );
});

Deno.test("approve --expose on a prompt or template offers it to agents at that tier", async () => {
  await using s = await upstreamSetup([WELL], { env: NO_CHANGES });
  const r = await s.run(["approvals", "approve", "files", "greet", "--expose", "read"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "approved prompt files greet (exposed to agents at tier read)\n");
  assert.equal(r.stderr, "");
  const t = await s.run(["approvals", "approve", "files", "notes", "--expose", "write"]);
  assert.equal(t.stdout, "approved template files notes (exposed to agents at tier write)\n");
  assert.equal((await states(s.run))["prompt greet"], "approved");
});
