/** @module Helpers for the console tests: an in-process app with changeable tokens, and a signed-in client. */
import { ConfigSchema } from "../../../src/config/schema.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import type { MemoryService } from "../../../src/core/memory_service.ts";
import { createHttpApp, type HttpAppOptions } from "../../../src/http/app.ts";
import type { TokenGrant } from "../../../src/http/auth.ts";
import type { HttpSettings } from "../../../src/http/context.ts";
import type { ConsoleParts } from "../../../src/http/console/console_deps.ts";
import { serveHttp } from "../../../src/http/serve_http.ts";
import { ProviderSet } from "../../../src/providers/stack.ts";
import type { SqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openService, sessionPorts, tempDir } from "../../helpers.ts";

/** Grants by token: read, write and admin for alice, a read token limited to one brain, an operator. */
export function testTokens(): Map<string, TokenGrant> {
  return new Map<string, TokenGrant>([
    ["tok-read", { tokenId: "t1", clientId: "alice", tier: "read", brains: "*" }],
    ["tok-write", { tokenId: "t2", clientId: "alice", tier: "write", brains: "*" }],
    ["tok-admin", { tokenId: "t3", clientId: "root", tier: "admin", brains: "*" }],
    ["tok-bob", { tokenId: "t4", clientId: "bob", tier: "write", brains: "*" }],
    ["tok-operator", {
      tokenId: "t5",
      clientId: "op",
      tier: "admin",
      brains: "*",
      operator: true,
    }],
  ]);
}

/** An in-process server with the console. */
export interface ConsoleServer extends AsyncDisposable {
  url: string;
  service: MemoryService;
  storage: SqliteStorage;
  /** The grants by token; delete one to revoke it. */
  tokens: Map<string, TokenGrant>;
}

/** Starts the app on 127.0.0.1:0 with `testTokens()`. */
export async function startConsole(
  o: {
    settings?: Partial<HttpSettings>;
    app?: Partial<HttpAppOptions>;
    /** The console's parts, made from the server's own storage. */
    parts?: (storage: SqliteStorage) => ConsoleParts;
  } = {},
): Promise<ConsoleServer> {
  const dir = await tempDir("engram-console-");
  const svc = await openService(dir.path);
  const tokens = testTokens();
  const app = createHttpApp({
    settings: { ...ConfigSchema.parse({}).server, ...o.settings },
    mcp: {
      service: svc.service,
      ...sessionPorts(svc.storage),
      logger: silentLogger,
      version: "test",
      providers: new ProviderSet([], { logger: silentLogger }),
      consolidate: { promoteAfterSessions: 2, pruneAfterDays: 90 },
    },
    verifyToken: (t) => Promise.resolve(tokens.get(t) ?? null),
    ready: () => svc.storage.health.ready(),
    ...(o.parts ? { console: o.parts(svc.storage) } : {}),
    ...o.app,
  });
  const server = serveHttp(app, { hostname: "127.0.0.1", port: 0, logger: silentLogger });
  return {
    url: server.url,
    service: svc.service,
    storage: svc.storage,
    tokens,
    [Symbol.asyncDispose]: async () => {
      await server.shutdown(1_000);
      svc[Symbol.dispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** A browser-like client of the console: a cookie and the CSRF token of one session. */
export class ConsoleClient {
  readonly url: string;
  cookie = "";
  csrf = "";

  constructor(url: string) {
    this.url = url;
  }

  /** Signs in with `token`; returns the raw response (its body consumed). */
  async signIn(token: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${this.url}/console/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: this.url },
      body: JSON.stringify({ token }),
    });
    const body = await res.json();
    const set = res.headers.get("set-cookie");
    if (res.status === 200 && set) {
      this.cookie = set.split(";")[0];
      this.csrf = body.csrf;
    }
    return { status: res.status, body };
  }

  /** A GET with the session's cookie. */
  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      headers: { cookie: this.cookie, ...headers },
      redirect: "manual",
    });
  }

  /** A write as the console's own page sends it: same origin, CSRF header, JSON. */
  write(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method,
      headers: {
        cookie: this.cookie,
        Origin: this.url,
        "X-Engram-CSRF": this.csrf,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** A GET of JSON; throws on an error status. */
  async json<T = Record<string, unknown>>(path: string): Promise<T> {
    const res = await this.get(path);
    const body = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body as T;
  }
}

/** A client signed in with `token`. */
export async function signedIn(url: string, token: string): Promise<ConsoleClient> {
  const c = new ConsoleClient(url);
  const r = await c.signIn(token);
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${JSON.stringify(r.body)}`);
  return c;
}

/** The error body of a refused console API call. */
export async function apiErrorOf(
  res: Response,
): Promise<{ status: number; code: string; message: string }> {
  const body = await res.json();
  return { status: res.status, code: body.error?.code, message: body.error?.message };
}
