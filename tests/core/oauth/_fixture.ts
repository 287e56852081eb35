/**
 * @module What the authorization server tests share: a server on a real SQLite file with a clock
 * the test moves, a registered client, and the steps of a consent (authorize, prove, code).
 */
import assert from "node:assert/strict";
import { TokenService } from "../../../src/core/bearer_tokens.ts";
import { ensureDefaultBrain } from "../../../src/core/brains.ts";
import {
  type AuthorizationServerOptions,
  EngramAuthorizationServer,
} from "../../../src/core/oauth/authorization_server.ts";
import {
  type AuthorizationRequest,
  type AuthorizationSettings,
  OAuthError,
  type OAuthErrorCode,
} from "../../../src/core/oauth/authorization_types.ts";
import { s256Challenge } from "../../../src/core/oauth/pkce.ts";
import type { Brain } from "../../../src/core/types.ts";
import {
  openSqliteStorage,
  type SqliteStorage,
} from "../../../src/storage/sqlite/sqlite_storage.ts";
import { tempDir } from "../../helpers.ts";

/** The issuer every test server has. */
export const ISSUER = "https://memory.example.com";
/** Its `/mcp` resource. */
export const RESOURCE = `${ISSUER}/mcp`;
/** A redirect URI the test clients register. */
export const REDIRECT = "https://claude.ai/api/mcp/auth_callback";
/** A PKCE verifier and its S256 challenge. */
export const VERIFIER = "v".repeat(20) + "-._~" + "A1".repeat(10);
export const CHALLENGE = s256Challenge(VERIFIER);

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The settings of the test servers. */
export const SETTINGS: AuthorizationSettings = {
  issuer: ISSUER,
  accessTokenTtlMs: HOUR,
  refreshTokenTtlMs: 30 * DAY,
  registrationTtlMs: 30 * DAY,
};

/** A clock the test moves by hand. */
export class Clock {
  #ms = Date.parse("2030-01-01T00:00:00.000Z");
  readonly now = (): Date => new Date(this.#ms);
  advance(ms: number): void {
    this.#ms += ms;
  }
}

/** A server over a fresh database, with the token service a resource server would use. */
export interface Fixture extends AsyncDisposable {
  server: EngramAuthorizationServer;
  storage: SqliteStorage;
  clock: Clock;
  tokens: TokenService;
  brain: Brain;
  /** The database file, to check no secret is stored in clear. */
  file: string;
}

/** Opens a server; `options` adds to (or replaces) the default ones. */
export async function openServer(
  options: Partial<AuthorizationServerOptions> = {},
): Promise<Fixture> {
  const dir = await tempDir("engram-oauth-");
  const clock = new Clock();
  const file = `${dir.path}/engram.db`;
  const storage = openSqliteStorage(file, { now: clock.now });
  await ensureDefaultBrain(storage.brains);
  const [brain] = await storage.brains.listBrains();
  const server = new EngramAuthorizationServer(storage, {
    settings: SETTINGS,
    now: clock.now,
    ...options,
  });
  return {
    server,
    storage,
    clock,
    tokens: new TokenService(storage, { now: clock.now }),
    brain,
    file,
    [Symbol.asyncDispose]: async () => {
      storage.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Registers a public client (`none`) with the test redirect URI; returns its id. */
export async function publicClient(f: Fixture, name = "Claude"): Promise<string> {
  const { client } = await f.server.register({
    redirect_uris: [REDIRECT, "http://127.0.0.1:33418/callback"],
    client_name: name,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
  }, { remote: "203.0.113.9" });
  return client.client_id;
}

/** An /authorize request of `clientId` (valid unless `extra` says otherwise). */
export function authRequest(
  clientId: string,
  extra: Partial<AuthorizationRequest> = {},
): AuthorizationRequest {
  return {
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    state: "xyz",
    resource: RESOURCE,
    scope: null,
    ...extra,
  };
}

/** A static engram token of `tier` (all brains unless `brains`), as proof for a consent. */
export async function staticToken(
  f: Fixture,
  tier: "read" | "write" | "admin",
  extra: { brains?: string[]; tools?: string[] } = {},
): Promise<{ token: string; id: string }> {
  const { token, record } = await f.tokens.create({ client: "alice", tier, ...extra });
  return { token, id: record.id };
}

/** The whole consent: check the request, prove with `proof`, issue a code. */
export async function consent(
  f: Fixture,
  request: AuthorizationRequest,
  proof: string,
): Promise<string> {
  await f.server.checkAuthorization(request);
  const grant = await f.server.proveIdentity(proof);
  assert.ok(grant, "the proof is accepted");
  return await f.server.issueCode(request, grant);
}

/** A code for a fresh public client with a write token; returns both. */
export async function codeFor(f: Fixture): Promise<{ clientId: string; code: string }> {
  const clientId = await publicClient(f);
  const { token } = await staticToken(f, "write");
  return { clientId, code: await consent(f, authRequest(clientId), token) };
}

/** Asserts `promise` rejects with an OAuthError of `code` (and the message and options given). */
export async function refusedWith(
  promise: Promise<unknown>,
  code: OAuthErrorCode,
  expect: { message?: RegExp; redirectable?: boolean; status?: number } = {},
): Promise<OAuthError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof OAuthError, `expected OAuthError ${code}, got ${caught}`);
  assert.equal(caught.error, code, caught.message);
  if (expect.message) assert.match(caught.message, expect.message);
  if (expect.redirectable !== undefined) {
    assert.equal(caught.options.redirectable ?? false, expect.redirectable, caught.message);
  }
  if (expect.status !== undefined) assert.equal(caught.options.status, expect.status);
  return caught;
}
