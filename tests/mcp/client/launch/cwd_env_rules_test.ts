/**
 * @module The cwd and env_loader rules' refusals added against a security review: the data and
 * config folders with what is in them, credential and world-writable folders, a home folder with
 * HOME unset; loader keys that choose the runtime, toolchain, registry or TLS trust; and a `${VAR}`
 * in a key allow_env names.
 */
import assert from "node:assert/strict";
import { loaderKey } from "../../../../src/mcp/client/launch/env_loader.ts";
import { evaluateLaunch } from "../../../../src/mcp/client/launch/launch_rules.ts";
import { tempDir } from "../../../helpers.ts";
import { launchable, testFacts, testSigner } from "../launch_setup.ts";
import { scratchDir } from "./_scratch.ts";

const signer = await testSigner();

Deno.test("cwd: data and config folders with what is in them, credential and world-writable folders are refused, each with its fix", async () => {
  await using dir = await scratchDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(`${home}/mcp/server`, { recursive: true });
  const facts = await testFacts(`${dir.path}/data`, {
    reviewKeys: [signer.reviewKey],
    vars: { HOME: home },
  });
  const judge = async (cwd: string, more: Record<string, string> = {}) => {
    const f = Object.keys(more).length
      ? await testFacts(`${dir.path}/data`, {
        reviewKeys: [signer.reviewKey],
        vars: { HOME: home, ...more },
      })
      : facts;
    const server = await launchable(signer, { name: "s", command: "deno", cwd });
    return (await evaluateLaunch(server, f)).checks.find((c) => c.rule === "cwd")!;
  };
  const data = "engram's data folder \\(its database and every server's sandbox directory\\)";
  const config = "engram's config folder \\(it holds the operator's review private key\\)";
  const cases: [string, RegExp, Record<string, string>?][] = [
    [`${dir.path}/data/sandboxes`, new RegExp(`which is inside ${data}$`)],
    [`${dir.path}/data/sandboxes/other/..`, new RegExp(`which is inside ${data}$`)],
    [`${dir.path}/data/sandboxes/other`, new RegExp(`which is inside ${data}$`)],
    ["~/.config/engram", new RegExp(`which is ${config}$`)],
    ["~/.config/engram/keys", new RegExp(`which is inside ${config}$`)],
    ["~/.config", new RegExp(`which is a parent of ${config}$`)],
    [`${dir.path}/xdg/engram`, new RegExp(`which is ${config}$`), {
      XDG_CONFIG_HOME: `${dir.path}/xdg`,
    }],
    [`${dir.path}/xdg`, new RegExp(`which is a parent of ${config}$`), {
      XDG_CONFIG_HOME: `${dir.path}/xdg`,
    }],
    [`${dir.path}/xdg/gcloud`, /which is the credential folder .*\/xdg\/gcloud$/, {
      XDG_CONFIG_HOME: `${dir.path}/xdg`,
    }],
    ["~/.ssh", /which is the credential folder .*\/home\/\.ssh$/],
    ["~/.gnupg/private-keys-v1.d", /which is inside the credential folder .*\/home\/\.gnupg$/],
    ["~/.aws", /which is the credential folder .*\/\.aws$/],
    ["~/.config/gcloud", /which is the credential folder .*\/\.config\/gcloud$/],
    ["~/.kube", /which is the credential folder .*\/\.kube$/],
    ["~/.docker", /which is the credential folder .*\/\.docker$/],
    ["/tmp", /which is the world-writable folder \/tmp$/],
    ["/var/tmp", /which is the world-writable folder \/var\/tmp$/],
  ];
  for (const [cwd, detail, more] of cases) {
    const check = await judge(cwd, more);
    assert.equal(check.ok, false, cwd);
    assert.match(check.detail, detail, cwd);
    assert.match(check.fix, /^set cwd to a folder that holds only what the server needs/, cwd);
  }
  assert.match((await judge("~/.ssh")).fix, /pass the one credential the server needs through env/);
  assert.match((await judge("/tmp")).fix, /it holds every user's files/);
  // A folder of one's own inside /tmp is judged like any other: the sticky bit keeps it one's own.
  const own = await Deno.realPath(await Deno.makeTempDir({ prefix: "engram-cwd-" }));
  try {
    assert.equal((await judge(own)).ok, true, own);
  } finally {
    await Deno.remove(own);
  }
  // A folder of its own in the home folder is still fine.
  assert.equal((await judge("~/mcp/server")).ok, true);
});

Deno.test("cwd: with HOME unset, a user's home folder under /home or /Users is still refused", async () => {
  await using data = await tempDir();
  const facts = await testFacts(data.path, { reviewKeys: [signer.reviewKey], vars: { HOME: "" } });
  for (const cwd of ["/home/ada", "/Users/ada", "/home/ada/projects/.."]) {
    const server = await launchable(signer, { name: "s", command: "deno", cwd });
    const check = (await evaluateLaunch(server, facts)).checks.find((c) => c.rule === "cwd")!;
    assert.equal(check.ok, false, cwd);
    assert.match(
      check.detail,
      /which is a user's home folder \(HOME is not set, so engram cannot tell whose\)$/,
    );
    assert.match(check.fix, /set HOME in engram's environment/);
  }
  // A folder inside one is judged like any other (here: it does not exist).
  const inside = await launchable(signer, { name: "s", command: "deno", cwd: "/home/ada/mcp" });
  const check = (await evaluateLaunch(inside, facts)).checks.find((c) => c.rule === "cwd")!;
  assert.match(check.detail, /is not a directory$/);
});

Deno.test("env_loader: keys that choose the runtime, the toolchain, the registry or whom TLS trusts are loader keys", () => {
  for (
    const key of [
      "DOCKER_HOST",
      "DOCKER_CONFIG",
      "UV_PYTHON",
      "UV_CONFIG_FILE",
      "DENO_CERT",
      "DENO_AUTH_TOKENS",
      "OPENSSL_CONF",
      "OPENSSL_MODULES",
      "OPENSSL_ENGINES",
      "ZDOTDIR",
      "GIT_DIR",
      "GIT_AUTHOR_NAME",
      "NODE_EXTRA_CA_CERTS",
      "SSL_CERT_FILE",
      "SSL_CERT_DIR",
      "REQUESTS_CA_BUNDLE",
      "CURL_CA_BUNDLE",
      "HTTPS_PROXY",
      "https_proxy",
      "HTTP_PROXY",
      "http_proxy",
      "ALL_PROXY",
      "all_proxy",
      "NODE_PRESERVE_SYMLINKS",
      "NODE_REPL_EXTERNAL_MODULE",
      "CC",
      "CXX",
      "LD",
      "PYTHON",
      "MAKE",
      "CFLAGS",
      "LDFLAGS",
      "GOFLAGS",
      "GOTOOLCHAIN",
      "GOPROXY",
      "RUSTC_WRAPPER",
      "CARGO_HOME",
      "BUNDLE_GEMFILE",
      "PIPX_HOME",
      "YARN_RC_FILENAME",
      "BUN_INSTALL",
      "PYTHONINSPECT",
      "PYTHONSAFEPATH",
      "JAVA_HOME",
      "ELECTRON_RUN_AS_NODE",
    ]
  ) {
    const hit = loaderKey(key);
    assert.ok(hit, key);
    assert.ok(hit.why.length > 10, `${key}: a reason`);
  }
  for (const key of ["CCACHE_DIR", "MAKEFLAGS_HINT", "LDAP_URL", "DOCKERFILE", "NO_PROXY"]) {
    assert.equal(loaderKey(key), null, key);
  }
});

Deno.test("env_loader: a key allow_env names must hold its value literally, not a ${VAR}", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, {
    reviewKeys: [signer.reviewKey],
    vars: { OPTS: "--require /tmp/evil.cjs" },
  });
  const rule = async (env: Record<string, string>) =>
    (await evaluateLaunch(
      await launchable(signer, { name: "s", command: "deno", env, allow_env: Object.keys(env) }),
      facts,
    )).checks.find((c) => c.rule === "env_loader")!;
  const refused = await rule({ NODE_OPTIONS: "--max-old-space-size=512 ${OPTS}" });
  assert.equal(refused.ok, false);
  assert.equal(
    refused.detail,
    'env "NODE_OPTIONS" is named in allow_env but its value refers to ${OPTS}, which engram\'s environment would supply at each start, unsigned',
  );
  assert.equal(
    refused.fix,
    "write the value of NODE_OPTIONS literally in the entry (no ${VAR}), then sign the launch again: engram mcp sign s --key FILE",
  );
  // Any key allow_env names, loader key or not; an escaped $${VAR} is a literal.
  assert.equal((await rule({ LOG_LEVEL: "${OPTS}" })).ok, false);
  assert.equal((await rule({ NODE_OPTIONS: "--title=$${OPTS}" })).ok, true);
  assert.equal((await rule({ NODE_OPTIONS: "--max-old-space-size=512" })).ok, true);
});
