/**
 * Every launch rule, broken one at a time on a server that would otherwise start and write a
 * marker file: the start is refused with the rule's name and fix, and the marker never appears.
 */
import assert from "node:assert/strict";
import type { StdioServerConfig } from "../../../../src/config/mcp_servers.ts";
import { EngramError } from "../../../../src/core/errors.ts";
import { probeBubblewrap } from "../../../../src/mcp/client/launch/sandbox.ts";
import { startStdioServer } from "../../../../src/mcp/client/launch/stdio_process.ts";
import { tempDir } from "../../../helpers.ts";
import { exists } from "../../../cli/_util.ts";
import {
  launchable,
  signed,
  signedV1,
  stdioServer,
  testFacts,
  testSigner,
} from "../launch_setup.ts";

const signer = await testSigner();
const stranger = await testSigner();

/** Writes an executable script at `path` that leaves `marker` when run. */
async function markerScript(path: string, marker: string): Promise<void> {
  await Deno.writeTextFile(path, `#!/bin/sh\necho ran > '${marker}'\n`, { mode: 0o755 });
}

interface Case {
  name: string;
  rule: string;
  message: RegExp;
  /** Builds the broken server; `dir` is a temp dir, `marker` the file a started server writes. */
  server(dir: string, marker: string): Promise<StdioServerConfig>;
  reviewKeys?: string[];
  missingBwrap?: boolean;
  /** engram's environment for the facts (HOME for the cwd cases). */
  vars?: (dir: string) => Record<string, string>;
}

/** `deno eval` that writes the marker: what a real server start would do first. */
const writes = (
  marker: string,
) => ["eval", `Deno.writeTextFileSync(${JSON.stringify(marker)}, "ran")`];

const CASES: Case[] = [
  {
    name: "a list-valued command",
    rule: "command_token",
    message:
      /command is a list \(\["deno","eval",.*put the executable in command and the rest in args/,
    server: async (_d, marker) => ({
      ...(await launchable(signer, { name: "s", command: "deno", args: writes(marker) })),
      command: ["deno", ...writes(marker)],
    }),
  },
  {
    name: "a command of two words",
    rule: "command_token",
    message: /command ".*my server" is more than one word; put the executable in command/,
    server: async (dir, marker) => {
      await markerScript(`${dir}/my server`, marker);
      return await launchable(signer, { name: "s", command: `${dir}/my server` });
    },
  },
  {
    name: "a relative path",
    rule: "command_token",
    message: /command "\.\/mk" is a relative path; write an absolute path/,
    server: async (dir, marker) => {
      await markerScript(`${dir}/mk`, marker);
      return await launchable(signer, { name: "s", command: "./mk", cwd: dir });
    },
  },
  {
    name: "shell metacharacters",
    rule: "metacharacters",
    message:
      /holds shell metacharacters \("\$"\); put the executable in command and each argument in args; engram never runs a shell/,
    server: async (dir, marker) => {
      await markerScript(`${dir}/mk$x`, marker);
      return await launchable(signer, { name: "s", command: `${dir}/mk$x` });
    },
  },
  {
    name: "a newline",
    rule: "metacharacters",
    message: /\(a newline\)/,
    server: async (dir, marker) => {
      await markerScript(`${dir}/mk\nx`, marker);
      return await launchable(signer, { name: "s", command: `${dir}/mk\nx` });
    },
  },
  ...["bash", "/bin/bash", "sh", "dash"].map((shell): Case => ({
    name: `the shell ${shell}`,
    rule: "shell",
    message: new RegExp(
      `command "${shell}" is a shell; run the server's own executable with its arguments in args`,
    ),
    server: (_d, marker) =>
      launchable(signer, { name: "s", command: shell, args: ["-c", `echo ran > '${marker}'`] }),
  })),
  {
    name: "env as a launcher (by path)",
    rule: "shell",
    message: /command "\/usr\/bin\/env" launches another command named in its arguments/,
    server: (_d, marker) =>
      launchable(signer, { name: "s", command: "/usr/bin/env", args: ["deno", ...writes(marker)] }),
  },
  {
    name: "no reviewed allowlist entry",
    rule: "allowlist",
    message: /command "deno" has no reviewed allowlist entry; after reviewing it, add it/,
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        stdio_allowed_commands: [],
      }),
  },
  {
    name: "an allowlist entry for another file of the same name",
    rule: "allowlist",
    message: /command ".*\/deno" has no reviewed allowlist entry/,
    server: async (dir, marker) => {
      await markerScript(`${dir}/deno`, marker);
      return await launchable(signer, {
        name: "s",
        command: `${dir}/deno`,
        stdio_allowed_commands: ["deno"],
      });
    },
  },
  {
    name: "a command that is not installed",
    rule: "command_found",
    message: /command "no-such-server-xyz" was not found on PATH/,
    server: (_d) => launchable(signer, { name: "s", command: "no-such-server-xyz" }),
  },
  {
    name: "a cwd that does not exist",
    rule: "cwd",
    message: /cwd ".*\/missing" is not a directory; create it or change cwd/,
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        cwd: new URL("../../../fixtures/upstream/missing", import.meta.url).pathname,
      }),
  },
  {
    name: "a relative cwd",
    rule: "cwd",
    message: /cwd "work" is a relative path; write an absolute path, or one starting with ~\//,
    server: (_d, marker) =>
      launchable(signer, { name: "s", command: "deno", args: writes(marker), cwd: "work" }),
  },
  ...([
    ["the root folder", () => "/", /resolves to "\/", which is the root folder/],
    [
      "~/../../etc",
      () => "~/../../etc",
      /"~\/..\/..\/etc" resolves to "\/etc", which is a system folder/,
    ],
    ["a folder under /etc", () => "/etc/ssl", /which is inside the system folder \/etc/],
    ["the home folder", () => "~", /resolves to ".*\/home", which is the home folder/],
    ["a parent of the home folder", (d: string) => d, /which is a parent of the home folder/],
    [
      "the data folder",
      (d: string) => `${d}/data/.`,
      /which is engram's data folder \(its database and every server's sandbox directory\)/,
    ],
    [
      "another server's sandbox directory",
      (d: string) => `${d}/data/sandboxes/other`,
      /which is inside engram's data folder \(its database and every server's sandbox directory\)/,
    ],
    [
      "engram's config folder",
      () => "~/.config/engram",
      /which is engram's config folder \(it holds the operator's review private key\)/,
    ],
    ["~/.ssh", () => "~/.ssh", /which is the credential folder .*\/home\/\.ssh/],
    ["/var/tmp", () => "/var/tmp", /which is the world-writable folder \/var\/tmp/],
    [
      "a parent of the data folder (through a symlink)",
      (d: string) => `${d}/home/link-up`,
      /link-up" resolves to ".*", which is a parent of (the home folder|engram's data folder)/,
    ],
  ] as const).map(([name, cwd, message]): Case => ({
    name: `cwd ${name}`,
    rule: "cwd",
    message: new RegExp(
      `${message.source}; set cwd to a folder that holds only what the server needs`,
    ),
    // A home two levels deep, so that ~/../../etc is /etc itself.
    vars: (dir) => ({ HOME: name === "~/../../etc" ? "/home/someone" : `${dir}/home` }),
    server: async (dir, marker) => {
      await Deno.mkdir(`${dir}/home`, { recursive: true });
      await Deno.mkdir(`${dir}/data`, { recursive: true });
      await Deno.symlink("..", `${dir}/home/link-up`).catch(() => {});
      return await launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        cwd: cwd(dir),
      });
    },
  })),
  ...[
    "NODE_OPTIONS",
    "LD_PRELOAD",
    "PATH",
    "PYTHONPATH",
    "npm_config_registry",
    "DOCKER_HOST",
    "UV_PYTHON",
    "https_proxy",
    "GIT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "ELECTRON_RUN_AS_NODE",
  ].map((
    key,
  ): Case => ({
    name: `a loader key ${key} not in allow_env`,
    rule: "env_loader",
    message: new RegExp(
      `env "${key}" steers a loader or interpreter \\(.+\\); remove it from env, or after reviewing its value add it to the server's allow_env \\(allow_env: \\[${key}\\]\\)`,
    ),
    server: (dir, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        env: { [key]: key === "PATH" ? `${dir}:/usr/bin:/bin` : `${dir}/evil` },
        // Allowing another key does not allow this one.
        allow_env: ["RUBYOPT"],
      }),
  })),
  {
    name: "a key named in allow_env whose value is a ${VAR} of engram's environment",
    rule: "env_loader",
    message:
      /env "NODE_OPTIONS" is named in allow_env but its value refers to \$\{EVIL_OPTIONS\}, which engram's environment would supply at each start, unsigned; write the value of NODE_OPTIONS literally in the entry/,
    vars: (dir) => ({ EVIL_OPTIONS: `--require ${dir}/evil.cjs` }),
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        env: { NODE_OPTIONS: "${EVIL_OPTIONS}" },
        allow_env: ["NODE_OPTIONS"],
      }),
  },
  {
    name: "an env value changed after signing",
    rule: "manifest_digest",
    message:
      /manifest_digest does not match this launch .*: command, args, env values, allow_env, cwd, sandbox_profile or network changed since it was signed/,
    server: async (_d, marker) => {
      const reviewed = await launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        env: { LOG_LEVEL: "info" },
      });
      return { ...reviewed, env: { LOG_LEVEL: "debug" } };
    },
  },
  {
    name: "a launch signed under manifest v1",
    rule: "manifest_version",
    message:
      /signed under manifest v1, which does not cover env values; re-review with engram mcp review s \(or sign it again: engram mcp sign s --key FILE; engram mcp sign --all --key FILE signs every reviewed server\)/,
    server: (_d, marker) =>
      signedV1(
        stdioServer({
          name: "s",
          command: "deno",
          args: writes(marker),
          env: { LOG_LEVEL: "info" },
          sandbox_profile: "standard",
          client_consent: "approved",
          stdio_allowed_commands: ["deno"],
        }),
        signer,
      ),
  },
  {
    name: "no manifest digest",
    rule: "manifest_digest",
    message:
      /manifest_digest is not set; review the launch and sign it: engram mcp review s \(or engram mcp sign s --key FILE\)/,
    server: async (_d, marker) => ({
      ...(await launchable(signer, { name: "s", command: "deno", args: writes(marker) })),
      manifest_digest: undefined,
    }),
  },
  {
    name: "a digest signed for other args",
    rule: "manifest_digest",
    message:
      /manifest_digest does not match this launch \(signed sha256:.*, now sha256:.*\): command, args/,
    server: async (_d, marker) => ({
      ...(await launchable(signer, { name: "s", command: "deno", args: ["--version"] })),
      args: writes(marker),
    }),
  },
  {
    name: "no signature",
    rule: "manifest_signature",
    message: /manifest_signature is not set/,
    server: async (_d, marker) => ({
      ...(await launchable(signer, { name: "s", command: "deno", args: writes(marker) })),
      manifest_signature: undefined,
    }),
  },
  {
    name: "a signature by a key not in review_keys",
    rule: "manifest_signature",
    message:
      /not a signature of this launch by any key in mcp.review_keys \(1 listed\); sign with a listed key/,
    server: (_d, marker) =>
      launchable(stranger, { name: "s", command: "deno", args: writes(marker) }),
  },
  {
    name: "empty review_keys",
    rule: "manifest_signature",
    message:
      /mcp.review_keys is empty and no key is trusted in the database, so no signature can be trusted/,
    reviewKeys: [],
    server: (_d, marker) =>
      launchable(signer, { name: "s", command: "deno", args: writes(marker) }),
  },
  {
    name: "sandbox_profile disabled",
    rule: "sandbox_profile",
    message: /sandbox_profile is disabled.*; set sandbox_profile: restricted/,
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        sandbox_profile: "disabled",
      }),
  },
  {
    name: "restricted where bubblewrap is missing",
    rule: "sandbox",
    message: /bubblewrap is not installed .*or set sandbox_profile: standard/,
    missingBwrap: true,
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        sandbox_profile: "restricted",
      }),
  },
  {
    name: "an env reference that is not set",
    rule: "env_references",
    message:
      /env API_KEY refers to \$\{NOT_SET_ANYWHERE\}, which is not set; export NOT_SET_ANYWHERE/,
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        env: { API_KEY: "${NOT_SET_ANYWHERE}" },
      }),
  },
  ...(["pending", "denied"] as const).map((consent): Case => ({
    name: `client_consent ${consent}`,
    rule: "client_consent",
    message: new RegExp(
      `client_consent is ${consent}; approve it after review: engram mcp consent s approved`,
    ),
    server: (_d, marker) =>
      launchable(signer, {
        name: "s",
        command: "deno",
        args: writes(marker),
        client_consent: consent,
      }),
  })),
  {
    name: "a disabled server",
    rule: "enabled",
    message: /the server is disabled; enable it: engram mcp enable s/,
    server: (_d, marker) =>
      launchable(signer, { name: "s", command: "deno", args: writes(marker), enabled: false }),
  },
];

const missing = await probeBubblewrap({ bwrap: "/nonexistent/bwrap" });

for (const c of CASES) {
  Deno.test(`launch blocked by ${c.rule}: ${c.name}; nothing starts`, async () => {
    await using dir = await tempDir();
    const marker = `${dir.path}/marker`;
    const server = await c.server(dir.path, marker);
    const facts = await testFacts(`${dir.path}/data`, {
      reviewKeys: c.reviewKeys ?? [signer.reviewKey],
      ...(c.missingBwrap ? { sandbox: missing } : {}),
      ...(c.vars ? { vars: c.vars(dir.path) } : {}),
    });
    await assert.rejects(startStdioServer(server, { facts }), (err: unknown) => {
      assert.ok(err instanceof EngramError, String(err));
      assert.equal(err.code, "forbidden");
      assert.ok(
        err.message.startsWith(`mcp server "s" is blocked by rule ${c.rule}: `),
        err.message,
      );
      assert.match(err.message, c.message);
      assert.ok(!err.message.includes("\n"), "one line");
      return true;
    });
    assert.equal(await exists(marker), false, "no process ran");
    assert.equal(await exists(`${dir.path}/data/sandboxes`), false, "not even a sandbox dir");
  });
}

Deno.test("launch control: the unbroken servers of these cases do start and leave the marker", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(`${dir.path}/data`, { reviewKeys: [signer.reviewKey] });
  const viaDeno = `${dir.path}/deno-marker`;
  const viaScript = `${dir.path}/script-marker`;
  await markerScript(`${dir.path}/mk`, viaScript);
  for (
    const server of [
      await launchable(signer, { name: "a", command: "deno", args: writes(viaDeno) }),
      await launchable(signer, { name: "b", command: `${dir.path}/mk` }),
    ]
  ) {
    const proc = await startStdioServer(server, { facts });
    await proc.exited;
    await proc.stop();
  }
  assert.equal(await exists(viaDeno), true);
  assert.equal(await exists(viaScript), true);
});

Deno.test("launch rules: every check is reported, and only the first failure blocks", async () => {
  await using dir = await tempDir();
  const server = await signed(
    stdioServer({ name: "s", command: "bash", sandbox_profile: "disabled", enabled: false }),
    stranger,
  );
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const { evaluateLaunch } = await import("../../../../src/mcp/client/launch/launch_rules.ts");
  const verdict = await evaluateLaunch(server, facts);
  assert.deepEqual(verdict.checks.map((c) => c.rule), [
    "command_token",
    "metacharacters",
    "shell",
    "allowlist",
    "command_found",
    "allow_run",
    "cwd",
    "env_loader",
    "manifest_version",
    "manifest_digest",
    "manifest_signature",
    "sandbox_profile",
    "sandbox",
    "env_references",
    "client_consent",
    "enabled",
  ]);
  assert.equal(verdict.blocked?.rule, "shell");
  const failed = verdict.checks.filter((c) => !c.ok).map((c) => c.rule);
  assert.deepEqual(failed, [
    "shell",
    "allowlist",
    "manifest_signature",
    "sandbox_profile",
    "sandbox",
    "client_consent",
    "enabled",
  ]);
  for (const c of verdict.checks) {
    assert.ok(c.detail.length > 0);
    assert.equal(c.ok, c.fix === "", `${c.rule}: a fix exactly when it fails`);
  }
});
