/**
 * @module End to end (docs/connectors.md): the official SDK client's OAuth support (`auth()` and
 * `StreamableHTTPClientTransport` with an `OAuthClientProvider`) against a real `engram serve` on
 * loopback with OAuth on. The client registers, the test plays the browser on the consent page
 * (with a pairing code from `engram tokens pair`), the code is exchanged, tools are called at the
 * granted tier, the token is refreshed, a reused refresh token revokes its family, and `engram
 * tokens revoke` ends a connection. Then no token, code or secret of the run may appear in the
 * server's log or anywhere in the database but as a hash.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { Client, StreamableHTTPClientTransport } from "../../../src/mcp/sdk_client.ts";
import { callOk, connectLikeAClient, runEngram, tempDir } from "../../helpers.ts";
import { spawnServe } from "../http_helpers.ts";

/** Everything secret the run hands out, to look for afterwards. */
const secrets = new Set<string>();

/** An OAuth client provider as a native app would write one: memory only, a loopback redirect. */
class TestProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  lastState = "";

  get redirectUrl(): string {
    return "http://127.0.0.1:48123/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: "engram:write",
    };
  }

  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }

  clientInformation() {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
    if ("client_secret" in info && info.client_secret) secrets.add(info.client_secret);
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    secrets.add(tokens.access_token);
    if (tokens.refresh_token) secrets.add(tokens.refresh_token);
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(v: string) {
    this.verifier = v;
  }

  codeVerifier() {
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.info = undefined;
  }
}

/** A free loopback port (the issuer must name the port before the server starts). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Plays the browser: opens the consent page, allows with `proof`, returns the redirect's query. */
async function consentInBrowser(
  issuer: string,
  authorizationUrl: URL,
  proof: string,
): Promise<URLSearchParams> {
  const page = await fetch(authorizationUrl, { redirect: "manual" });
  const html = await page.text();
  assert.equal(page.status, 200, html);
  assert.match(html, /<strong>SDK test client<\/strong>/);
  assert.match(html, /<code>http:\/\/127\.0\.0\.1:48123<\/code>/);
  assert.match(html, /tier write \(scope engram:write\)/);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0];
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
    form.set(m[1], m[2].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))));
  }
  form.set("token", proof);
  form.set("decision", "allow");
  const answer = await fetch(`${issuer}/authorize`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: issuer,
      Cookie: cookie,
    },
    body: form,
    redirect: "manual",
  });
  await answer.body?.cancel();
  assert.equal(answer.status, 302);
  const location = new URL(answer.headers.get("location")!);
  assert.equal(`${location.origin}${location.pathname}`, "http://127.0.0.1:48123/callback");
  return location.searchParams;
}

/** Connects an SDK client with `provider`; the first connection ends in a redirect to consent. */
async function connect(mcp: string, provider: TestProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await connectLikeAClient(client, transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** Authorizes `provider` from scratch: register (first time), consent with a new pairing code, exchange. */
async function authorize(dataDir: string, issuer: string, provider: TestProvider) {
  const mcp = `${issuer}/mcp`;
  const transport = new StreamableHTTPClientTransport(new URL(mcp), { authProvider: provider });
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  await assert.rejects(client.connect(transport), /Unauthorized/);
  assert.ok(provider.authorizationUrl, "the SDK was sent to the consent page");
  assert.equal(provider.authorizationUrl.searchParams.get("resource"), mcp);
  const paired = await runEngram(["tokens", "pair", "--tier", "write", "--json"], { dataDir });
  assert.equal(paired.code, 0, paired.stderr);
  const code = JSON.parse(paired.stdout).code as string;
  secrets.add(code);
  secrets.add(code.replaceAll("-", ""));
  const back = await consentInBrowser(issuer, provider.authorizationUrl, code);
  assert.equal(back.get("state"), provider.lastState, "the state comes back unchanged");
  assert.equal(back.get("iss"), issuer);
  const granted = back.get("code")!;
  secrets.add(granted);
  await transport.finishAuth(granted);
  await client.close();
  provider.authorizationUrl = undefined;
}

/** Whether /mcp accepts `token` (an initialize). */
async function accepted(issuer: string, token: string): Promise<boolean> {
  const res = await fetch(`${issuer}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "probe", version: "1" },
      },
    }),
  });
  const id = res.headers.get("mcp-session-id");
  await res.body?.cancel();
  if (id) {
    await fetch(`${issuer}/mcp`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${token}`, "Mcp-Session-Id": id },
    }).then((r) => r.body?.cancel());
  }
  return res.status === 200;
}

Deno.test("the SDK client's OAuth against engram serve: register, consent, exchange, tools at the granted tier, refresh, reuse, revoke — and no secret leaks", async () => {
  await using dir = await tempDir("engram-oauth-e2e-");
  const port = freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const config = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    [
      "log_level: debug",
      "server:",
      `  public_url: ${issuer}`,
      "  oauth:",
      "    enabled: true",
    ].join("\n") + "\n",
  );
  const staticToken = await runEngram(
    ["tokens", "create", "--client", "ops", "--tier", "write"],
    { dataDir: dir.path },
  );
  secrets.add(staticToken.stdout.trim());
  const serve = await spawnServe(dir.path, ["--port", String(port), "--config", config]);
  const mcp = `${issuer}/mcp`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    serve.child.kill("SIGTERM");
    await serve.child.status;
  };
  try {
    assert.equal(serve.url, issuer);

    // 1. Register (dynamic registration, by the SDK), consent in the browser, exchange.
    const provider = new TestProvider();
    await authorize(dir.path, issuer, provider);
    assert.match(provider.info!.client_id, /^oac_/);
    assert.ok(
      "client_secret" in provider.info! && provider.info.client_secret,
      "a confidential client",
    );
    assert.equal(provider.saved?.token_type, "Bearer");
    assert.equal(provider.saved?.scope, "engram:write");

    // 2. Tools at the granted tier: write tools listed and working, admin tools absent.
    const first = await connect(mcp, provider);
    const names = (await first.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("memory_remember"), names.join(", "));
    assert.ok(!names.includes("memory_create_brain"), "no admin tool at write tier");
    await callOk(first.client, "memory_remember", { content: "OAuth connectors work end to end." });
    const found = await callOk<{ hits: unknown[] }>(first.client, "memory_search", {
      query: "connectors end to end",
    });
    assert.ok(found.hits.length > 0);
    await first.close();

    // 3. Refresh: the SDK rotates the pair; the new access token works.
    const before = provider.saved!;
    assert.equal(await auth(provider, { serverUrl: mcp }), "AUTHORIZED");
    const after = provider.saved!;
    assert.notEqual(after.access_token, before.access_token);
    assert.notEqual(after.refresh_token, before.refresh_token);
    assert.ok(await accepted(issuer, after.access_token));

    // 4. Reusing the spent refresh token is refused and revokes the whole family.
    const reuse = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Authorization: `Basic ${
          btoa(
            `${provider.info!.client_id}:${
              (provider.info as { client_secret: string }).client_secret
            }`,
          )
        }`,
      },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: before.refresh_token!,
        resource: mcp,
      }),
    });
    assert.equal(reuse.status, 400);
    assert.equal((await reuse.json()).error, "invalid_grant");
    assert.ok(
      !(await accepted(issuer, after.access_token)),
      "the family's access token is revoked",
    );

    // 5. Authorized again (the client is still registered), then the operator revokes the token.
    provider.invalidateCredentials("tokens");
    await authorize(dir.path, issuer, provider);
    const again = await connect(mcp, provider);
    assert.ok((await again.client.listTools()).tools.length > 0);
    await again.close();
    const listed = await runEngram(["tokens", "list", "--json"], { dataDir: dir.path });
    const items = JSON.parse(listed.stdout).items as Record<string, unknown>[];
    const live = items.filter((t) =>
      t.oauth_client_id === provider.info!.client_id && t.revoked_at === null
    );
    assert.ok(live.length >= 1, listed.stdout);
    for (const t of live) {
      assert.equal(t.oauth_client_name, "SDK test client");
      const revoked = await runEngram(["tokens", "revoke", t.id as string], { dataDir: dir.path });
      assert.equal(revoked.code, 0, revoked.stderr);
    }
    assert.ok(!(await accepted(issuer, provider.saved!.access_token)), "refused after revoke");
    // Its refresh token is dead too: the SDK's refresh is refused (invalid_grant), so it drops the
    // tokens and starts over at the consent page.
    assert.equal(await auth(provider, { serverUrl: mcp }), "REDIRECT");
    assert.equal(provider.saved, undefined);
  } finally {
    await stop();
  }

  // 6. Nothing secret in the log, nor anywhere in the database but as a hash.
  const log = await serve.stderr();
  assert.match(log, /auth: bearer tokens and OAuth \(issuer http:\/\/127\.0\.0\.1:\d+\)/);
  const db = new DatabaseSync(`${dir.path}/engram.db`, { readOnly: true });
  let dump = "";
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all()) dump += JSON.stringify(row);
    }
  } finally {
    db.close();
  }
  assert.ok(dump.includes("SDK test client"), "the dump reads the tables");
  assert.ok(secrets.size >= 10, `secrets collected: ${secrets.size}`);
  for (const secret of secrets) {
    assert.ok(!log.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the server's log`);
    assert.ok(!dump.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the database`);
  }
});

Deno.test("engram serve --insecure-no-auth keeps working with OAuth on: no token needed, the metadata still served", async () => {
  await using dir = await tempDir("engram-oauth-noauth-");
  const config = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    "server:\n  public_url: http://127.0.0.1:9\n  oauth:\n    enabled: true\n",
  );
  const serve = await spawnServe(dir.path, ["--insecure-no-auth", "--config", config]);
  try {
    const meta = await fetch(`${serve.url}/.well-known/oauth-authorization-server`);
    assert.equal((await meta.json()).issuer, "http://127.0.0.1:9");
    const transport = new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`));
    const client = new Client({ name: "anonymous", version: "1.0.0" });
    await connectLikeAClient(client, transport);
    assert.ok((await client.listTools()).tools.some((t) => t.name === "memory_search"));
    await transport.terminateSession();
    await client.close();
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr();
  }
});
