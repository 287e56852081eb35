/** Importing Claude Desktop / Claude Code / Cursor / VS Code MCP configs. */
import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import {
  parseImport,
  readImportFile,
  serverName,
} from "../../../../src/mcp/client/import/config_import.ts";
import { tempDir } from "../../../helpers.ts";

const FILE = "/home/u/.config/Claude/claude_desktop_config.json";

function importText(value: unknown, existingNames?: string[]) {
  return parseImport(typeof value === "string" ? value : JSON.stringify(value, null, 2), {
    file: FILE,
    existingNames,
  });
}

function assertImportError(fn: () => unknown, pattern: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes("\n"), err.message);
    return true;
  });
}

Deno.test("import: Claude Desktop servers start disabled, user_added, consent pending; literal env becomes references", () => {
  const report = importText({
    mcpServers: {
      github: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_secret123", LOG_LEVEL: "debug", PORT: 8080 },
      },
    },
  });
  assert.equal(report.source, "mcpServers");
  assert.deepEqual(report.skipped, []);
  assert.equal(report.servers.length, 1);
  const { config, from, notes } = report.servers[0];
  assert.equal(from, "github");
  assert.deepEqual(notes, []);
  assert.deepEqual(config, {
    name: "github",
    transport: "stdio",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-github"],
    env: {
      GITHUB_PERSONAL_ACCESS_TOKEN: "${ENGRAM_IMPORT_GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN}",
      LOG_LEVEL: "${ENGRAM_IMPORT_GITHUB_LOG_LEVEL}",
      PORT: "${ENGRAM_IMPORT_GITHUB_PORT}",
    },
    stdio_allowed_commands: [],
    sandbox_profile: "restricted",
    network: false,
    client_consent: "pending",
    trust: "user_added",
    enabled: false,
  });
  assert.deepEqual(report.secrets.map((s) => [s.variable, s.field, s.key]), [
    ["ENGRAM_IMPORT_GITHUB_GITHUB_PERSONAL_ACCESS_TOKEN", "env", "GITHUB_PERSONAL_ACCESS_TOKEN"],
    ["ENGRAM_IMPORT_GITHUB_LOG_LEVEL", "env", "LOG_LEVEL"],
    ["ENGRAM_IMPORT_GITHUB_PORT", "env", "PORT"],
  ]);
  assert.ok(!JSON.stringify(report).includes("ghp_secret123"), "no secret value in the report");
});

Deno.test("import: a one-string command is split only when no shell would be needed", () => {
  const report = importText({
    mcpServers: {
      plain: { command: "npx -y  @scope/pkg", args: ["--root", "/srv"] },
      piped: { command: "npx pkg && curl http://x | sh" },
      quoted: { command: "node 'my server.js'" },
      subst: { command: "npx $(whoami)" },
      listed: { command: ["npx", "-y", "pkg"] },
      nothing: { args: ["x"] },
    },
  });
  assert.equal(report.servers.length, 1);
  assert.equal(report.servers[0].config.transport, "stdio");
  const plain = report.servers[0].config as { command: string; args: string[] };
  assert.equal(plain.command, "npx");
  assert.deepEqual(plain.args, ["-y", "@scope/pkg", "--root", "/srv"]);
  assert.deepEqual(report.servers[0].notes, [
    'split command "npx -y  @scope/pkg" into command "npx" and args ["-y","@scope/pkg"]',
  ]);
  const reasons = Object.fromEntries(report.skipped.map((s) => [s.name, s.reason]));
  assert.match(
    reasons.piped,
    /holds shell metacharacters \("\|", "&"\), so splitting it would need a shell, which engram never runs/,
  );
  assert.match(reasons.quoted, /holds quotes or backslashes/);
  assert.match(reasons.subst, /shell metacharacters \("\$", "\(", "\)"\)/);
  assert.match(reasons.listed, /its command is a list/);
  assert.match(reasons.nothing, /it has no command/);
});

Deno.test("import: VS Code servers (JSONC) with http headers, ${env:X} kept, ${input:x} replaced", () => {
  const report = importText(`{
    // VS Code .vscode/mcp.json
    "inputs": [{ "type": "promptString", "id": "key", "password": true }],
    "servers": {
      "docs": {
        "type": "http",
        "url": "https://docs.example.com/mcp",
        "headers": { "Authorization": "Bearer \${env:DOCS_TOKEN}", "X-Api-Key": "\${input:key}" },
      },
      "legacy": { "type": "sse", "url": "http://127.0.0.1:9000/sse" },
      "local": { "type": "stdio", "command": "uvx", "args": ["mcp-server-git"], "envFile": "\${workspaceFolder}/.env" },
    },
  }`);
  assert.equal(report.source, "servers");
  assert.deepEqual(report.skipped, []);
  const [docs, legacy, local] = report.servers;
  assert.deepEqual(docs.config, {
    name: "docs",
    transport: "http",
    url: "https://docs.example.com/mcp",
    headers: {
      Authorization: "Bearer ${DOCS_TOKEN}",
      "X-Api-Key": "${ENGRAM_IMPORT_DOCS_X_API_KEY}",
    },
    client_consent: "pending",
    trust: "user_added",
    enabled: false,
  });
  assert.deepEqual(docs.notes, [
    "headers.X-Api-Key holds a ${...} form engram does not expand; set ENGRAM_IMPORT_DOCS_X_API_KEY instead",
  ]);
  assert.equal(legacy.config.transport, "sse");
  assert.deepEqual(local.notes, ["envFile ignored: add its variables to env"]);
  assert.deepEqual(report.secrets.map((s) => s.variable), ["ENGRAM_IMPORT_DOCS_X_API_KEY"]);
});

Deno.test("import: Claude Code .mcp.json remote servers and VS Code settings.json mcp.servers", () => {
  const claudeCode = importText({
    mcpServers: {
      remote: { type: "http", url: "https://x.example/mcp" },
      cursor: { url: "https://c.example/sse" },
    },
  });
  assert.deepEqual(claudeCode.servers.map((s) => [s.config.name, s.config.transport]), [
    ["remote", "http"],
    ["cursor", "http"],
  ]);
  const settings = importText({
    "editor.tabSize": 2,
    mcp: { servers: { s: { command: "deno", args: ["run", "x.ts"] } } },
  });
  assert.equal(settings.source, "mcp.servers");
  assert.equal(settings.servers[0].config.name, "s");
});

Deno.test("import: names become valid server names; existing names and bad entries are skipped with reasons", () => {
  const report = importText(
    {
      mcpServers: {
        "github.com/acme server": { command: "npx" },
        files: { command: "npx" },
        "!!!": { command: "npx" },
        shell: { command: "bash", args: ["-c", "run-server"] },
        ours: { command: "npx", env: { ENGRAM_TOKEN: "${ENGRAM_TOKEN}" } },
        weird: { type: "websocket", url: "ws://x" },
        badurl: { type: "http", url: "not a url" },
      },
    },
    ["Files"],
  );
  assert.deepEqual(report.servers.map((s) => [s.from, s.config.name, s.notes]), [
    ["github.com/acme server", "github-com-acme-server", ['renamed from "github.com/acme server"']],
    ["shell", "shell", ['will stay blocked: command "bash" is a shell']],
  ]);
  const reasons = Object.fromEntries(report.skipped.map((s) => [s.name, s.reason]));
  assert.match(reasons.files, /a server named "files" is already configured/);
  assert.match(reasons["!!!"], /its name cannot be made into one that must be 1-32 letters/);
  assert.match(reasons.ours, /env.ENGRAM_TOKEN: ENGRAM_\* variables are engram's own/);
  assert.match(reasons.weird, /its type "websocket" is not stdio, http or sse/);
  assert.match(reasons.badurl, /url: must be an http:\/\/ or https:\/\/ URL/);
  assert.equal(serverName("a".repeat(40)), "a".repeat(32));
});

Deno.test("import: a file that is not JSON is one line naming the file, line and column", () => {
  assertImportError(
    () => importText('{\n  "mcpServers": {\n    "x": { "command": "npx" "args": [] }\n  }\n}'),
    new RegExp(`^import file ${FILE} is not JSON: "," was expected at line 3, column 29;`),
  );
  assertImportError(() => importText(""), /is not JSON: a value was expected at line 1, column 1/);
  assertImportError(
    () => importText("mcpServers:\n  x: {}\n"),
    /is not JSON: .* at line 1, column 1/,
  );
  assertImportError(
    () => importText({ servers: [] }),
    /has no "mcpServers" or "servers" object; point at a Claude Desktop, Claude Code \(\.mcp\.json\), Cursor or VS Code MCP config$/,
  );
});

Deno.test("import: reading a missing file is one line naming it", async () => {
  await using dir = await tempDir();
  await assert.rejects(readImportFile(`${dir.path}/nope.json`), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.match(err.message, /^cannot read import file .*nope\.json: /);
    return true;
  });
  await Deno.writeTextFile(
    `${dir.path}/ok.json`,
    JSON.stringify({ mcpServers: { a: { command: "npx" } } }),
  );
  assert.equal((await readImportFile(`${dir.path}/ok.json`)).servers.length, 1);
});
