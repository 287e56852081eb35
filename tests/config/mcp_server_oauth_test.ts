/**
 * @module The `oauth` key of a remote server entry (docs/configuration.md): what it takes, a client
 * secret only as a `${VAR}` reference — kept unexpanded at load, so an unset one blocks that server
 * (rule env_references) and never engram's start — and the refusals of what it does not take.
 */
import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { evaluateLaunch } from "../../src/mcp/client/launch/launch_rules.ts";
import { gatherLaunchFacts } from "../../src/mcp/client/launch/launch_facts.ts";
import { tempDir } from "../helpers.ts";
import { assertRefused, loadYaml } from "./_config.ts";

const entry = (...oauth: string[]) => [
  "mcp:",
  "  mcp_servers:",
  "    - name: linear",
  "      transport: http",
  "      url: https://mcp.linear.example/mcp",
  "      client_consent: approved",
  "      oauth:",
  ...oauth.map((line) => `        ${line}`),
];

Deno.test("oauth: every key read; the client secret kept as its reference; an unset one blocks only that server", async () => {
  const { config } = await loadYaml(entry(
    "client_id: engram-prod",
    'client_secret: "${LINEAR_SECRET}"',
    'scopes: [read, "issues:write"]',
    "redirect_port: 8765",
  ));
  const server = config.mcp.mcp_servers[0];
  assert.equal(server.transport, "http");
  assert.deepEqual(server.transport === "http" && server.oauth, {
    client_id: "engram-prod",
    client_secret: "${LINEAR_SECRET}",
    scopes: ["read", "issues:write"],
    redirect_port: 8765,
  });
  await using dir = await tempDir();
  const facts = (vars: Record<string, string>) =>
    gatherLaunchFacts({ review_keys: [], stdio_allowed_commands: [] }, {
      env: envFrom(vars),
      dataDir: dir.path,
      sandbox: { ok: false, reason: "not needed", fix: "" },
    });
  const blocked = await evaluateLaunch(server, await facts({}));
  assert.equal(blocked.blocked?.rule, "env_references");
  assert.equal(
    blocked.blocked?.detail,
    "oauth client_secret refers to ${LINEAR_SECRET}, which is not set",
  );
  assert.equal(
    blocked.blocked?.fix,
    "export LINEAR_SECRET in engram's environment before it starts",
  );
  const ready = await evaluateLaunch(server, await facts({ LINEAR_SECRET: "s3cret" }));
  assert.equal(ready.blocked, null);
});

Deno.test("oauth: a client-ID metadata document URL must be https with a path", async () => {
  const { config } = await loadYaml(entry(
    "client_id_metadata_document_url: https://engram.example/client.json",
  ));
  const server = config.mcp.mcp_servers[0];
  assert.equal(
    server.transport === "http" && server.oauth?.client_id_metadata_document_url,
    "https://engram.example/client.json",
  );
  for (const url of ["http://engram.example/client.json", "https://engram.example/"]) {
    await assertRefused(
      entry(`client_id_metadata_document_url: ${url}`),
      8,
      "mcp.mcp_servers.0.oauth.client_id_metadata_document_url",
      /must be an https:\/\/ URL with a path: where your client-ID metadata document is served/,
    );
  }
});

Deno.test("oauth: a literal secret, a secret without a client, a bad scope or port, an unknown key are refused", async () => {
  await assertRefused(
    entry("client_id: a", "client_secret: hunter2"),
    9,
    "mcp.mcp_servers.0.oauth.client_secret",
    /must be a \$\{VAR\} reference \(client_secret: "\$\{MY_CLIENT_SECRET\}"\); secrets are never written in the config file/,
  );
  await assertRefused(
    entry('client_secret: "${S}"'),
    8,
    "mcp.mcp_servers.0.oauth.client_secret",
    /client_secret needs client_id: a secret belongs to a pre-registered client/,
  );
  await assertRefused(
    entry('scopes: ["two words"]'),
    8,
    "mcp.mcp_servers.0.oauth.scopes.0",
    /must be one OAuth scope: printable characters without spaces or quotes/,
  );
  await assertRefused(
    entry("redirect_port: 70000"),
    8,
    "mcp.mcp_servers.0.oauth.redirect_port",
    /must be a whole number 1\.\.65535, got 70000/,
  );
  await assertRefused(entry("client: x"), 8, "mcp.mcp_servers.0.oauth.client", /./);
});
