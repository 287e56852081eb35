/**
 * @module What the OAuth endpoint tests share: the HTTP app with engram's real authorization server
 * and token service on a real SQLite file, a clock the test moves, and the steps a browser and a
 * client take (register, open the consent page, post it, exchange the code).
 */
import assert from "node:assert/strict";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { ensureDefaultBrain } from "../../../src/core/brains.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { EngramAuthorizationServer } from "../../../src/core/oauth/authorization_server.ts";
import { MemoryService } from "../../../src/core/memory_service.ts";
import { s256Challenge } from "../../../src/core/oauth/pkce.ts";
import { createHttpApp } from "../../../src/http/app.ts";
import type { HttpSettings } from "../../../src/http/context.ts";
import { serveHttp } from "../../../src/http/serve_http.ts";
import { ProviderSet } from "../../../src/providers/stack.ts";
import {
  openSqliteStorage,
  type SqliteStorage,
} from "../../../src/storage/sqlite/sqlite_storage.ts";
import { sessionPorts, tempDir } from "../../helpers.ts";

/** The public URL (issuer) of the test apps; requests reach them on loopback. */
export const ISSUER = "https://memory.example.com";
/** Its resource. */
export const RESOURCE = `${ISSUER}/mcp`;
/** The redirect URI test clients register (Claude.ai's). */
export const REDIRECT = "https://claude.ai/api/mcp/auth_callback";
/** A PKCE verifier and its challenge. */
export const VERIFIER = "verifier-".repeat(6);
export const CHALLENGE = s256Challenge(VERIFIER);

/** A clock the test moves. */
export class Clock {
  ms = Date.parse("2030-01-01T00:00:00.000Z");
  readonly date = (): Date => new Date(this.ms);
  readonly millis = (): number => this.ms;
}

/** A running app with OAuth enabled. */
export interface OAuthApp extends AsyncDisposable {
  /** Where it listens (loopback). */
  url: string;
  storage: SqliteStorage;
  tokens: TokenService;
  clock: Clock;
}

/** Starts an app on 127.0.0.1:0 with OAuth on, the issuer `settings.public_url` (default ISSUER). */
export async function startOAuthApp(
  options: { settings?: Partial<HttpSettings>; storage?: SqliteStorage; clock?: Clock } = {},
): Promise<OAuthApp> {
  const dir = await tempDir("engram-oauth-http-");
  const clock = options.clock ?? new Clock();
  const own = options.storage === undefined;
  const storage = options.storage ??
    openSqliteStorage(`${dir.path}/engram.db`, { now: clock.date });
  await ensureDefaultBrain(storage.brains);
  const defaults = ConfigSchema.parse({}).server;
  const settings: HttpSettings = {
    ...defaults,
    public_url: ISSUER,
    ...options.settings,
    oauth: { ...defaults.oauth, enabled: true, ...options.settings?.oauth },
  };
  const issuer = settings.public_url!.replace(/\/+$/, "");
  const tokens = new TokenService(storage, { now: clock.date });
  const server = new EngramAuthorizationServer(storage, {
    settings: {
      issuer,
      accessTokenTtlMs: settings.oauth.access_token_ttl_ms,
      refreshTokenTtlMs: settings.oauth.refresh_token_ttl_ms,
      registrationTtlMs: settings.oauth.registration_ttl_ms,
    },
    now: clock.date,
  });
  const app = createHttpApp({
    settings,
    mcp: {
      service: new MemoryService(storage, {}),
      ...sessionPorts(storage),
      logger: silentLogger,
      version: "test",
      providers: new ProviderSet([], { logger: silentLogger }),
      consolidate: { promoteAfterSessions: 2, pruneAfterDays: 90 },
    },
    verifyToken: (t) => tokens.verify(t, { audience: `${issuer}/mcp` }),
    ready: () => storage.health.ready(),
    oauth: { server },
    now: clock.millis,
  });
  const http = serveHttp(app, { hostname: "127.0.0.1", port: 0, logger: silentLogger });
  return {
    url: http.url,
    storage,
    tokens,
    clock,
    [Symbol.asyncDispose]: async () => {
      await http.shutdown(1_000);
      if (own) storage.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** POSTs a registration; returns the response and its JSON. */
export async function register(
  url: string,
  metadata: unknown,
  headers: Record<string, string> = {},
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(metadata),
  });
  return { res, body: await res.json() };
}

/** Registers a public client (`none`) with REDIRECT; returns its id. */
export async function publicClient(url: string, name = "Claude"): Promise<string> {
  const { res, body } = await register(url, {
    client_name: name,
    redirect_uris: [REDIRECT, "https://claude.ai/other_callback"],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
  });
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.client_id as string;
}

/** The query of a valid /authorize request of `clientId`, with `extra` over it (null drops a key). */
export function authorizeQuery(
  clientId: string,
  extra: Record<string, string | null> = {},
): string {
  const params: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    state: "st4te",
    resource: RESOURCE,
    ...extra,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null) q.set(k, v);
  return q.toString();
}

/** What a browser holds after opening the consent page: its cookie and the form's fields. */
export interface ConsentForm {
  res: Response;
  html: string;
  cookie: string;
  fields: Record<string, string>;
}

const ENTITY = /&#(\d+);/g;

/** Opens the consent page as a browser would and reads the form. */
export async function openConsent(url: string, query: string): Promise<ConsentForm> {
  const res = await fetch(`${url}/authorize?${query}`, { redirect: "manual" });
  const html = await res.text();
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0];
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2].replace(ENTITY, (_, n) => String.fromCharCode(Number(n)));
  }
  return { res, html, cookie, fields };
}

/** Posts the consent form as a browser on the issuer's page would (its Origin, its cookie). */
export async function postConsent(
  url: string,
  form: ConsentForm,
  answer: { token?: string; decision: string; cookie?: string; origin?: string },
  change: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams({ ...form.fields, ...change, decision: answer.decision });
  if (answer.token !== undefined) body.set("token", answer.token);
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    Origin: answer.origin ?? ISSUER,
  };
  const cookie = answer.cookie ?? form.cookie;
  if (cookie) headers.Cookie = cookie;
  return await fetch(`${url}/authorize`, { method: "POST", headers, body, redirect: "manual" });
}

/** The query parameters of a redirect's Location. */
export function redirectParams(res: Response): URLSearchParams {
  assert.equal(res.status, 302, `expected a redirect, got ${res.status}`);
  const location = res.headers.get("location");
  assert.ok(location, "a Location header");
  return new URL(location).searchParams;
}

/** POSTs a form to /token; returns the response and its JSON. */
export async function tokenRequest(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
  return { res, body: await res.json() };
}

/** A static engram token of `tier` (proof for a consent). */
export async function staticToken(
  app: OAuthApp,
  tier: "read" | "write" | "admin",
): Promise<string> {
  return (await app.tokens.create({ client: "alice", tier })).token;
}

/** The whole flow up to a code: register a public client, consent with a `tier` token. */
export async function codeFor(
  app: OAuthApp,
  options: { tier?: "read" | "write" | "admin"; scope?: string } = {},
): Promise<{ clientId: string; code: string }> {
  const clientId = await publicClient(app.url);
  const form = await openConsent(
    app.url,
    authorizeQuery(clientId, options.scope ? { scope: options.scope } : {}),
  );
  assert.equal(form.res.status, 200, form.html);
  const token = await staticToken(app, options.tier ?? "write");
  const params = redirectParams(await postConsent(app.url, form, { token, decision: "allow" }));
  const code = params.get("code");
  assert.ok(code, `a code, got ${params}`);
  return { clientId, code };
}

/** Exchanges a code for tokens as a public client. */
export async function exchange(
  url: string,
  clientId: string,
  code: string,
  extra: Record<string, string> = {},
) {
  return await tokenRequest(url, {
    grant_type: "authorization_code",
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource: RESOURCE,
    ...extra,
  });
}
