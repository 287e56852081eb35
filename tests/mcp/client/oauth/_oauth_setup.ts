/**
 * @module What the OAuth client tests share: a temp data directory with a real SQLite database,
 * engram's OAuth client over it (on a clock the test may move), a server entry for the fixture,
 * a login that plays the browser, and a session that uses the kept tokens.
 */
import { envFrom } from "../../../../src/config/env.ts";
import { type HttpServerConfig, HttpServerSchema } from "../../../../src/config/mcp_servers.ts";
import { secretKeySource } from "../../../../src/config/secret_key.ts";
import { gatherLaunchFacts } from "../../../../src/mcp/client/launch/launch_facts.ts";
import type { LaunchFacts } from "../../../../src/mcp/client/launch/launch_rules.ts";
import type { LoginResult } from "../../../../src/mcp/client/oauth/login_flow.ts";
import {
  UpstreamOAuth,
  type UpstreamOAuthDeps,
} from "../../../../src/mcp/client/oauth/upstream_oauth.ts";
import { UpstreamSession } from "../../../../src/mcp/client/session/upstream_session.ts";
import {
  openSqliteStorage,
  type SqliteStorage,
} from "../../../../src/storage/sqlite/sqlite_storage.ts";
import { playBrowser } from "../../../fixtures/oauth/oauth_upstream.ts";

/** The limits logins run within. */
export const LIMITS = { maxMessageBytes: 1 << 20, requestTimeoutMs: 5_000 };

/** A clock the test moves by hand. */
export class TestClock {
  #ms = Date.now();
  readonly now = (): Date => new Date(this.#ms);
  advance(ms: number): void {
    this.#ms += ms;
  }
}

/** A data directory, its storage and engram's OAuth client over it. */
export interface OAuthSetup extends AsyncDisposable {
  dir: string;
  storage: SqliteStorage;
  oauth: UpstreamOAuth;
  clock: TestClock;
  /** A session to `server` that uses the kept tokens (closed with the setup). */
  session(server: HttpServerConfig): Promise<UpstreamSession>;
  /** The launch facts of this setup, for a session made by hand. */
  facts(): Promise<LaunchFacts>;
}

/** Opens a fresh setup; `env` is engram's environment (ENGRAM_SECRET_KEY, `${VAR}` secrets). */
export async function oauthSetup(
  o: { env?: Record<string, string>; deps?: Partial<UpstreamOAuthDeps> } = {},
): Promise<OAuthSetup> {
  const dir = await Deno.makeTempDir({ prefix: "engram-oauth-" });
  const env = envFrom(o.env ?? {});
  const clock = new TestClock();
  const storage = openSqliteStorage(`${dir}/engram.db`);
  const oauth = new UpstreamOAuth({
    store: storage.upstreamCredentials,
    keys: secretKeySource(env, dir),
    env,
    now: clock.now,
    ...o.deps,
  });
  const sessions: UpstreamSession[] = [];
  const facts = await gatherLaunchFacts(
    { review_keys: [], stdio_allowed_commands: [] },
    { env, dataDir: dir, sandbox: { ok: false, reason: "not needed for HTTP", fix: "" } },
  );
  return {
    dir,
    storage,
    oauth,
    clock,
    facts: () => Promise.resolve(facts),
    session(server) {
      const session = new UpstreamSession(server, { facts, oauth, requestTimeoutMs: 5_000 });
      sessions.push(session);
      return Promise.resolve(session);
    },
    async [Symbol.asyncDispose]() {
      for (const s of sessions) await s.close();
      storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A server entry named `docs` for the fixture at `url`. */
export function serverAt(url: string, extra: Record<string, unknown> = {}): HttpServerConfig {
  return HttpServerSchema.parse({
    name: "docs",
    transport: "http",
    url,
    client_consent: "approved",
    ...extra,
  });
}

/** Logs in, the test playing the person's browser (or `browser`, for a case that must fail). */
export function login(
  setup: OAuthSetup,
  server: HttpServerConfig,
  browser: (url: string) => Promise<unknown> = playBrowser,
): Promise<LoginResult> {
  return setup.oauth.login(server, LIMITS, {
    onAuthorizationUrl: async (url) => void await browser(url),
    waitMs: 5_000,
  });
}

/** The bytes of the database and its WAL as text, to grep for secrets. */
export async function databaseText(dir: string): Promise<string> {
  let text = "";
  for (const name of ["engram.db", "engram.db-wal"]) {
    try {
      text += new TextDecoder("latin1").decode(await Deno.readFile(`${dir}/${name}`));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return text;
}
