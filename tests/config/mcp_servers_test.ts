/** The `mcp:` section of the config: upstream server entries, review keys, limits, key lines. */
import assert from "node:assert/strict";
import { samplingPolicy } from "../../src/config/mcp_servers.ts";
import { assertRefused, loadYaml } from "./_config.ts";

const KEY = "ed25519:Etip+tfXWVHyUkOfSJp4KLGboePth15g2eLl8IuoyDY=";

const SERVERS = [
  "mcp:",
  "  stdio_allowed_commands: [npx]",
  `  review_keys: ["${KEY}"]`,
  "  mcp_servers:",
  "    - name: files",
  "      transport: stdio",
  "      command: npx",
  '      args: ["-y", "@modelcontextprotocol/server-filesystem", 8080]',
  '      env: { API_TOKEN: "${FILES_TOKEN}", MODE: fast }',
  "      client_consent: approved",
  "    - name: remote-docs",
  "      transport: http",
  "      url: https://docs.example.com/mcp",
  '      headers: { Authorization: "Bearer ${DOCS_TOKEN}" }',
];

Deno.test("mcp config: stdio and http entries with their defaults; env and header references kept for launch", async () => {
  const { config } = await loadYaml(SERVERS);
  assert.deepEqual(config.mcp.review_keys, [KEY]);
  assert.equal(config.mcp.max_result_bytes, 10 * 1024 * 1024);
  assert.deepEqual(config.mcp.mcp_servers, [
    {
      name: "files",
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "8080"],
      // Not expanded at load time (FILES_TOKEN is not even set): a missing secret blocks this one
      // server when it starts, instead of stopping engram.
      env: { API_TOKEN: "${FILES_TOKEN}", MODE: "fast" },
      stdio_allowed_commands: [],
      sandbox_profile: "restricted",
      network: false,
      client_consent: "approved",
      trust: "user_added",
      enabled: true,
    },
    {
      name: "remote-docs",
      transport: "http",
      url: "https://docs.example.com/mcp",
      headers: { Authorization: "Bearer ${DOCS_TOKEN}" },
      client_consent: "pending",
      trust: "user_added",
      enabled: true,
    },
  ]);
});

Deno.test("mcp config: the file and line of every key of every server, for commands that must not change them", async () => {
  const { file, config } = await loadYaml(SERVERS);
  assert.deepEqual(config.mcp.sources.files, {
    name: { file, line: 5 },
    transport: { file, line: 6 },
    command: { file, line: 7 },
    args: { file, line: 8 },
    env: { file, line: 9 },
    client_consent: { file, line: 10 },
  });
  assert.deepEqual(Object.keys(config.mcp.sources["remote-docs"]), [
    "name",
    "transport",
    "url",
    "headers",
  ]);
  assert.equal(config.mcp.sources["remote-docs"].url.line, 13);
  assert.ok(!Object.hasOwn(config.mcp.sources.files, "enabled"), "a default is not a YAML key");
});

Deno.test("mcp config: max_result_bytes can be set, and must be a whole number of 1024 or more", async () => {
  const { config } = await loadYaml(["mcp:", "  max_result_bytes: 2048"]);
  assert.equal(config.mcp.max_result_bytes, 2048);
  await assertRefused(
    ["mcp:", "  max_result_bytes: 10"],
    2,
    "mcp.max_result_bytes",
    /must be a whole number 1024 or more/,
  );
});

Deno.test("mcp config: request_timeout_ms defaults to 30 s, can be set, and must be 100..3600000", async () => {
  assert.equal(
    (await loadYaml(["mcp:", "  review_keys: []"])).config.mcp.request_timeout_ms,
    30_000,
  );
  const { config } = await loadYaml(["mcp:", "  request_timeout_ms: 2500"]);
  assert.equal(config.mcp.request_timeout_ms, 2500);
  await assertRefused(
    ["mcp:", "  request_timeout_ms: 50"],
    2,
    "mcp.request_timeout_ms",
    /must be a whole number 100\.\.3600000/,
  );
  await assertRefused(
    ["mcp:", "  request_timeout_ms: soon"],
    2,
    "mcp.request_timeout_ms",
    /must be a whole number 100\.\.3600000, got "soon"/,
  );
});

Deno.test("mcp config: sampling is absent unless set (off by default); set, it fills in its defaults", async () => {
  const { config } = await loadYaml([
    "mcp:",
    "  mcp_servers:",
    "    - name: plain",
    "      transport: stdio",
    "      command: npx",
    "    - name: asks",
    "      transport: stdio",
    "      command: npx",
    "      sampling: { allowed: true }",
    "    - name: remote",
    "      transport: sse",
    "      url: https://x.example/sse",
    "      sampling: { allowed: true, max_tokens: 256 }",
  ]);
  const [plain, asks, remote] = config.mcp.mcp_servers;
  assert.ok(!Object.hasOwn(plain, "sampling"), "no key, no value: the default policy applies");
  assert.deepEqual(samplingPolicy(plain), { allowed: false, max_tokens: 1024 });
  assert.deepEqual(asks.sampling, { allowed: true, max_tokens: 1024 });
  assert.deepEqual(samplingPolicy(remote), { allowed: true, max_tokens: 256 });
});

const server = (
  ...lines: string[]
) => ["mcp:", "  mcp_servers:", "    - name: s", ...lines.map((l) => `      ${l}`)];

const REFUSED: [string, string[], number, string, RegExp][] = [
  [
    "a command that is a map",
    server("transport: stdio", "command: { run: npx }"),
    5,
    "mcp.mcp_servers.0.command",
    /must be the server's executable, got a map/,
  ],
  [
    "no command",
    server("transport: stdio"),
    3,
    "mcp.mcp_servers.0.command",
    /is required: the server's executable/,
  ],
  [
    "no transport",
    server("command: npx"),
    3,
    "mcp.mcp_servers.0.transport",
    /transport must be one of stdio, http, sse/,
  ],
  [
    "an unknown transport",
    server("transport: websocket", "url: ws://x"),
    4,
    "mcp.mcp_servers.0.transport",
    /transport must be one of stdio, http, sse/,
  ],
  [
    "an http key on a stdio server",
    server("transport: stdio", "command: npx", "url: https://x"),
    6,
    "mcp.mcp_servers.0.url",
    /unknown key/,
  ],
  [
    "a bad sandbox profile",
    server("transport: stdio", "command: npx", "sandbox_profile: none"),
    6,
    "mcp.mcp_servers.0.sandbox_profile",
    /restricted|standard|disabled/,
  ],
  [
    "network as text",
    server("transport: stdio", "command: npx", "network: maybe"),
    6,
    "mcp.mcp_servers.0.network",
    /boolean/,
  ],
  [
    "a malformed digest",
    server("transport: stdio", "command: npx", "manifest_digest: sha256:abc"),
    6,
    "mcp.mcp_servers.0.manifest_digest",
    /must be "sha256:" and 64 lowercase hex digits/,
  ],
  [
    "a malformed signature",
    server("transport: stdio", "command: npx", "manifest_signature: c2ln"),
    6,
    "mcp.mcp_servers.0.manifest_signature",
    /base64 of a 64-byte Ed25519 signature/,
  ],
  [
    "an ENGRAM_ variable",
    server("transport: stdio", "command: npx", "env:", "  ENGRAM_DATA_DIR: x"),
    7,
    "mcp.mcp_servers.0.env.ENGRAM_DATA_DIR",
    /ENGRAM_\* variables are engram's own/,
  ],
  [
    "a bad variable name",
    server("transport: stdio", "command: npx", "env:", "  1BAD: x"),
    7,
    "mcp.mcp_servers.0.env.1BAD",
    /must be an environment variable name/,
  ],
  [
    "a bad allow_env name",
    server("transport: stdio", "command: npx", "allow_env: [NODE_OPTIONS, 1BAD]"),
    6,
    "mcp.mcp_servers.0.allow_env.1",
    /must be an environment variable name/,
  ],
  [
    "a literal secret in env",
    server("transport: stdio", "command: npx", "env:", "  GITHUB_TOKEN: ghp_abc"),
    7,
    "mcp.mcp_servers.0.env.GITHUB_TOKEN",
    /write the secret as an environment reference such as \$\{GITHUB_TOKEN\}; secrets are never stored in the config file/,
  ],
  [
    "a literal Authorization header",
    server(
      "transport: http",
      "url: https://x.example/mcp",
      "headers:",
      "  Authorization: Bearer abc",
    ),
    7,
    "mcp.mcp_servers.0.headers.Authorization",
    /environment reference such as \$\{AUTHORIZATION\}/,
  ],
  [
    "an ftp url",
    server("transport: sse", "url: ftp://x.example/"),
    5,
    "mcp.mcp_servers.0.url",
    /must be an http:\/\/ or https:\/\/ URL/,
  ],
  [
    "a bad consent",
    server("transport: sse", "url: https://x.example/", "client_consent: yes"),
    6,
    "mcp.mcp_servers.0.client_consent",
    /approved|pending|denied/,
  ],
  [
    "sampling as a bare boolean",
    server("transport: stdio", "command: npx", "sampling: true"),
    6,
    "mcp.mcp_servers.0.sampling",
    /object/,
  ],
  [
    "an unknown sampling key",
    server("transport: stdio", "command: npx", "sampling: { allowed: true, model: big }"),
    6,
    "mcp.mcp_servers.0.sampling.model",
    /unknown key/,
  ],
  [
    "zero sampling max_tokens",
    server("transport: http", "url: https://x.example/mcp", "sampling: { max_tokens: 0 }"),
    6,
    "mcp.mcp_servers.0.sampling.max_tokens",
    /must be a whole number 1\.\.1000000/,
  ],
];

for (const [label, yaml, line, key, message] of REFUSED) {
  Deno.test(`mcp config: ${label} is refused at its line`, async () => {
    await assertRefused(yaml, line, key, message);
  });
}

Deno.test("mcp config: a list-valued command or a relative cwd loads as written, for the launch rules to block", async () => {
  const { config } = await loadYaml([
    "mcp:",
    "  mcp_servers:",
    "    - name: listed",
    "      transport: stdio",
    "      command: [npx, -y, pkg]",
    "    - name: here",
    "      transport: stdio",
    "      command: npx",
    "      cwd: ./here",
  ]);
  const [listed, here] = config.mcp.mcp_servers;
  assert.ok(listed.transport === "stdio" && here.transport === "stdio");
  assert.deepEqual(listed.command, ["npx", "-y", "pkg"]);
  assert.equal(here.cwd, "./here");
});

Deno.test("mcp config: server names must fit tool names and be unique regardless of case", async () => {
  await assertRefused(
    [
      "mcp:",
      "  mcp_servers:",
      "    - name: my.server",
      "      transport: stdio",
      "      command: npx",
    ],
    3,
    "mcp.mcp_servers.0.name",
    /must be 1-32 letters, digits, "-" or "_", starting with a letter or digit \(it becomes part of tool names mcp_<server>_<tool>\)/,
  );
  await assertRefused(
    [
      "mcp:",
      "  mcp_servers:",
      `    - name: ${"x".repeat(33)}`,
      "      transport: stdio",
      "      command: npx",
    ],
    3,
    "mcp.mcp_servers.0.name",
    /must be 1-32/,
  );
  await assertRefused(
    [
      "mcp:",
      "  mcp_servers:",
      "    - name: files",
      "      transport: stdio",
      "      command: npx",
      "    - name: Files",
      "      transport: http",
      "      url: https://x.example/mcp",
    ],
    6,
    "mcp.mcp_servers.1.name",
    /server name "Files" is already used by entry 0; names must be unique \(compared without case\)/,
  );
});

Deno.test("mcp config: a malformed review key is one line naming the entry and the fix", async () => {
  await assertRefused(
    ["mcp:", "  review_keys:", `    - "${KEY}"`, '    - "ed25519:abc"'],
    4,
    "mcp.review_keys.1",
    /"ed25519:abc" is not a review key; write "ed25519:" and the base64 of the 32-byte public key, as engram mcp keys generate prints it$/,
  );
});

Deno.test("mcp config: harmless names are not mistaken for secrets; ${VAR} outside env/headers still expands at load", async () => {
  const { config } = await loadYaml(
    server(
      "transport: stdio",
      "command: npx",
      'args: ["--root", "${NOTES}"]',
      'env: { GIT_AUTHOR_NAME: Bob, AUTHOR: x, PASSTHROUGH: y, TOKEN_FILE_HINT: "${T}" }',
    ),
    { NOTES: "/srv/notes" },
  );
  const s = config.mcp.mcp_servers[0];
  assert.equal(s.transport, "stdio");
  if (s.transport !== "stdio") return;
  assert.deepEqual(s.args, ["--root", "/srv/notes"]);
  assert.deepEqual(Object.keys(s.env), [
    "GIT_AUTHOR_NAME",
    "AUTHOR",
    "PASSTHROUGH",
    "TOKEN_FILE_HINT",
  ]);
  await assertRefused(
    server("transport: stdio", "command: npx", 'args: ["${NOT_SET_X}"]'),
    6,
    "mcp.mcp_servers.0.args.0",
    /\$\{NOT_SET_X\} is not set in the environment/,
  );
});
