/**
 * @module Upstream MCP server entries (`mcp.mcp_servers`, docs/upstream.md#server-entries): their schema,
 * the YAML line of each key, and the `${VAR}` references in `env` and `headers`, which are resolved
 * when a server starts rather than when the config loads.
 */
import { z } from "zod";
import type { EnvSnapshot } from "./env.ts";
import { wholeNumber } from "./number_setting.ts";
import type { YamlSource } from "./yaml_source.ts";

/**
 * A server name: it becomes part of exposed tool names (`mcp_<server>_<tool>`), which must fit the
 * strictest common client rule for tool names (`^[A-Za-z0-9_-]{1,64}$`), so 32 characters leave
 * room for the tool's own name. It is also a directory name (`sandboxes/<server>`) and a CLI
 * argument, hence the leading letter or digit (never `-`, never `.`).
 */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Why a name was refused, for config errors and the importer. */
export const SERVER_NAME_RULE =
  'must be 1-32 letters, digits, "-" or "_", starting with a letter or digit (it becomes part of tool names mcp_<server>_<tool>)';

/** Sandbox profiles, strongest first. */
const SANDBOX_PROFILES = ["restricted", "standard", "disabled"] as const;
/** A server's sandbox profile. */
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];
/** The operator's consent to connect to a server. */
export const CONSENT_STATES = ["approved", "pending", "denied"] as const;
/** Trust levels (docs/upstream.md#trust-levels). */
const TRUST_LEVELS = ["builtin", "verified", "user_added"] as const;

/** A review key: `ed25519:` and the standard base64 of a 32-byte raw public key (44 characters). */
export const REVIEW_KEY = /^ed25519:[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
/** A manifest digest: `sha256:` and 64 lowercase hex digits. */
const MANIFEST_DIGEST = /^sha256:[0-9a-f]{64}$/;
/** A manifest signature: the standard base64 of a 64-byte Ed25519 signature (88 characters). */
const MANIFEST_SIGNATURE = /^[A-Za-z0-9+/]{85}[AQgw]==$/;

/** A working directory engram accepts: absolute, or in the home directory (`~`, `~/…`). */
export const ABSOLUTE_CWD = /^(\/|~\/|~$)/;

/** `max_result_bytes` default: 10 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;
/** `request_timeout_ms` default: how long one upstream request may take. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * `elicitation_timeout_ms` default: how long a person may take to answer an upstream's form or
 * URL elicitation, during which the request that caused it does not time out.
 */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 600_000;

/** Why a `review_keys` entry was refused. */
function reviewKeyRefusal(input: unknown): string {
  return `${
    JSON.stringify(input)
  } is not a review key; write "ed25519:" and the base64 of the 32-byte public key, as engram mcp keys generate prints it`;
}

/** YAML reads `8080` and `true` as numbers and booleans; an argument or variable is text. */
const text = z.preprocess(
  (v) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v),
  z.string({ error: (issue) => `must be text, got ${describe(issue.input)}` }),
);

/** A map of text values whose keys must match `key` (checked per key so errors name the key). */
function textMap(check: (key: string) => string | null) {
  return z.record(z.string(), text).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      const problem = check(key);
      if (problem) ctx.addIssue({ code: "custom", path: [key], message: problem });
    }
  });
}

/** Why `key` cannot be an env variable of a server, or null when it can. */
function envKeyProblem(k: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
    return "must be an environment variable name: letters, digits and _, not starting with a digit";
  }
  return k.toUpperCase().startsWith("ENGRAM_")
    ? "ENGRAM_* variables are engram's own and are never passed to an upstream server"
    : null;
}

const envMap = textMap(envKeyProblem);

/**
 * `allow_env`: env keys that steer a loader or interpreter, allowed for this server after review.
 * Optional rather than defaulted, so entries without it read (and are stored) as before.
 */
const allowEnv = z.array(
  z.string().superRefine((k, ctx) => {
    const problem = envKeyProblem(k);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
).optional();

const headerMap = textMap((k) =>
  /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)
    ? null
    : "must be an HTTP header name (letters, digits and -)"
);

const serverName = z.string({ error: "is required: a name for this server" }).regex(SERVER_NAME, {
  error: SERVER_NAME_RULE,
});

/**
 * Whether an upstream may ask engram's model for completions (`sampling/createMessage`), and how
 * many tokens one answer may use. Off unless the operator turns it on for that server: sampling
 * spends the operator's model budget on the upstream's prompts.
 */
const SamplingPolicySchema = z.strictObject({
  allowed: z.boolean().default(false),
  max_tokens: wholeNumber(1, 1_000_000).default(1024),
});

/** A server's sampling policy, filled in. */
export type SamplingPolicy = z.infer<typeof SamplingPolicySchema>;

/** The policy of a server without a `sampling` key. */
const DEFAULT_SAMPLING: SamplingPolicy = { allowed: false, max_tokens: 1024 };

/**
 * How long one request to `server` may take: its own `request_timeout_ms`, never above `ceiling`
 * (`mcp.request_timeout_ms`, which is also the default), so the config file bounds every server.
 */
export function serverRequestTimeout(
  server: { request_timeout_ms?: number },
  ceiling: number,
): number {
  return Math.min(server.request_timeout_ms ?? ceiling, ceiling);
}

/** The sampling policy of a server entry (the default when the entry has none). */
export function samplingPolicy(server: { sampling?: SamplingPolicy }): SamplingPolicy {
  return server.sampling ?? DEFAULT_SAMPLING;
}

/** Tiers an exposed upstream tool can be offered at. */
const TIER = z.enum(["read", "write", "admin"]);

/**
 * Exposure through engram's own server (issue 15): `tier` for every approved tool of the server,
 * `tools` per tool name; a key set here wins over `engram mcp approvals approve --expose`.
 */
const ExposeSchema = z.strictObject({
  tier: TIER.optional(),
  tools: z.record(z.string().min(1), TIER.or(z.literal("none"))).default({}),
});

/** A server's exposure settings. */
type ExposeSettings = z.infer<typeof ExposeSchema>;

const governance = {
  client_consent: z.enum(CONSENT_STATES).default("pending"),
  trust: z.enum(TRUST_LEVELS).default("user_added"),
  enabled: z.boolean().default(true),
  expose: ExposeSchema.optional(),
  /** May its resources be compiled into memory although its trust is user_added. */
  compile: z.boolean().optional(),
  /** This server's request timeout; `mcp.request_timeout_ms` is its default and its ceiling. */
  request_timeout_ms: wholeNumber(100, 3_600_000).optional(),
};

/**
 * A stdio server: a subprocess engram starts only when every launch rule passes. A list-valued
 * `command` and a relative `cwd` are loaded as written and block that server only, by the launch
 * rules (docs/upstream.md#launch-rules: a failure blocks that server only), so one bad entry never stops engram from
 * serving memory; every other key is checked here.
 */
export const StdioServerSchema = z.strictObject({
  name: serverName,
  transport: z.literal("stdio"),
  command: z.union([z.string().min(1, { error: "must not be empty" }), z.array(text)], {
    error: (issue) =>
      issue.input === undefined
        ? "is required: the server's executable"
        : `must be the server's executable, got ${describe(issue.input)}`,
  }),
  args: z.array(text).default([]),
  env: envMap.default({}),
  allow_env: allowEnv,
  cwd: z.string().min(1, { error: "must not be empty" }).optional(),
  stdio_allowed_commands: z.array(z.string().min(1)).default([]),
  manifest_digest: z.string().regex(MANIFEST_DIGEST, {
    error: 'must be "sha256:" and 64 lowercase hex digits, as engram mcp sign prints it',
  }).optional(),
  manifest_signature: z.string().regex(MANIFEST_SIGNATURE, {
    error: "must be the base64 of a 64-byte Ed25519 signature, as engram mcp sign prints it",
  }).optional(),
  sandbox_profile: z.enum(SANDBOX_PROFILES).default("restricted"),
  network: z.boolean().default(false),
  sampling: SamplingPolicySchema.optional(),
  ...governance,
});

/** A `${VAR}` reference and nothing else: how a secret is written in the config file. */
export const SECRET_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** One OAuth scope token (RFC 6749 §3.3: printable ASCII without space, `"` or `\`). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * How engram logs in to a server that requires OAuth (docs/upstream.md#oauth-upstreams): a
 * pre-registered client (`client_id`, with `client_secret` as a `${VAR}` reference, resolved when
 * the server is used like `headers`), else a client-ID metadata document the operator hosts, else
 * dynamic registration; the scopes asked for besides the server's own; a fixed callback port.
 */
const OAuthSettingsSchema = z.strictObject({
  client_id: z.string().min(1, { error: "must not be empty" }).optional(),
  client_secret: z.string().regex(SECRET_REFERENCE, {
    error:
      'must be a ${VAR} reference (client_secret: "${MY_CLIENT_SECRET}"); secrets are never written in the config file',
  }).optional(),
  client_id_metadata_document_url: z.url({
    protocol: /^https$/,
    error: "must be an https:// URL with a path: where your client-ID metadata document is served",
  }).refine((u) => new URL(u).pathname !== "/", {
    error: "must be an https:// URL with a path: where your client-ID metadata document is served",
  }).optional(),
  scopes: z.array(
    z.string().regex(SCOPE_TOKEN, {
      error: "must be one OAuth scope: printable characters without spaces or quotes",
    }),
  ).optional(),
  redirect_port: wholeNumber(1, 65535).optional(),
}).refine((o) => o.client_secret === undefined || o.client_id !== undefined, {
  error: "client_secret needs client_id: a secret belongs to a pre-registered client",
  path: ["client_secret"],
});

/** A server's OAuth settings. */
export type OAuthSettings = z.infer<typeof OAuthSettingsSchema>;

/** An HTTP (Streamable HTTP) or legacy SSE server. */
export const HttpServerSchema = z.strictObject({
  name: serverName,
  transport: z.enum(["http", "sse"]),
  url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  headers: headerMap.default({}),
  oauth: OAuthSettingsSchema.optional(),
  sampling: SamplingPolicySchema.optional(),
  ...governance,
});

/** One `mcp.mcp_servers` entry. */
export const McpServerSchema = z.discriminatedUnion("transport", [
  StdioServerSchema,
  HttpServerSchema,
], { error: "transport must be one of stdio, http, sse" });

/** A validated stdio server entry. */
export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
/** A validated http or sse server entry. */
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
/** A validated server entry. */
export type McpServerConfig = z.infer<typeof McpServerSchema>;

/** The server list; names are unique without regard to case (sandbox directories on macOS are not). */
const McpServerListSchema = z.array(McpServerSchema).superRefine((servers, ctx) => {
  const seen = new Map<string, number>();
  servers.forEach((s, i) => {
    const key = s.name.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else {
      ctx.addIssue({
        code: "custom",
        path: [i, "name"],
        message:
          `server name "${s.name}" is already used by entry ${first}; names must be unique (compared without case)`,
      });
    }
  });
});

/** The `mcp:` section of the config file: the upstream servers and the rules and limits for them. */
export const McpSectionSchema = z.strictObject({
  stdio_allowed_commands: z.array(z.string().min(1)).default([])
    .describe("The global reviewed allowlist of stdio server commands (exact text)"),
  allowed_file_roots: z.array(z.string().min(1)).default([]),
  review_keys: z.array(
    z.string().regex(REVIEW_KEY, { error: (issue) => reviewKeyRefusal(issue.input) }),
  ).default([]).describe("Ed25519 public keys whose signatures approve stdio launches"),
  max_result_bytes: wholeNumber(1024).default(DEFAULT_MAX_RESULT_BYTES)
    .describe("Largest upstream result engram accepts"),
  request_timeout_ms: wholeNumber(100, 3_600_000).default(DEFAULT_REQUEST_TIMEOUT_MS)
    .describe("How long one upstream request may take before it is cancelled"),
  elicitation_timeout_ms: wholeNumber(1000, 86_400_000).default(DEFAULT_ELICITATION_TIMEOUT_MS)
    .describe("How long a person may take to answer an upstream's elicitation"),
  approvals_lock: z.string().min(1).optional()
    .describe("A committed mcp-lock.json that is the source of truth for approvals"),
  trace_retention_days: wholeNumber(1, 3650).default(30)
    .describe("Days upstream call traces are kept"),
  mcp_servers: McpServerListSchema.default([]),
}).prefault({});

/** Where a YAML key was written. */
export interface KeySource {
  file: string;
  line: number;
}

/** For each server defined in the YAML, the file and line of each key it sets. */
export type McpKeySources = Record<string, Record<string, KeySource>>;

/**
 * The line of every key of every YAML-defined server, so a command that would change a key the
 * YAML sets (consent, enabled) can refuse by naming the file and line.
 */
export function mcpKeySources(source: YamlSource): McpKeySources {
  const servers = (source.value as { mcp?: { mcp_servers?: unknown } } | null)?.mcp?.mcp_servers;
  const out: McpKeySources = {};
  if (!Array.isArray(servers)) return out;
  servers.forEach((entry, i) => {
    if (!entry || typeof entry !== "object" || typeof entry.name !== "string") return;
    const keys: Record<string, KeySource> = {};
    for (const key of Object.keys(entry)) {
      const line = source.lineOf(["mcp", "mcp_servers", i, key]);
      if (line !== undefined) keys[key] = { file: source.file, line };
    }
    out[entry.name] = keys;
  });
  return out;
}

/**
 * `env`, `headers` and `oauth.client_secret` values of a server keep their `${VAR}` references at
 * load time: a secret that is not set blocks that one server when it starts (naming the variable),
 * instead of stopping engram, and the config never holds the secret's value.
 */
export function isDeferredReference(path: readonly (string | number)[]): boolean {
  return path.length === 5 && path[0] === "mcp" && path[1] === "mcp_servers" &&
    (path[3] === "env" || path[3] === "headers" ||
      (path[3] === "oauth" && path[4] === "client_secret"));
}

const REFERENCE = /\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${VAR}` from `env` (`$${` is a literal `${`, as in the rest of the config). */
export function expandReferences(
  value: string,
  env: EnvSnapshot,
): { value: string; missing: string[] } {
  const missing: string[] = [];
  const expanded = value.replace(REFERENCE, (whole, name: string) => {
    if (whole.startsWith("$$")) return whole.slice(1);
    const v = env.get(name);
    if (v === undefined) missing.push(name);
    return v ?? "";
  });
  return { value: expanded, missing };
}

/** The variables `value` refers to, in order (an escaped `$${VAR}` is no reference). */
export function referencedVariables(value: string): string[] {
  return [...value.matchAll(REFERENCE)].filter((m) => !m[0].startsWith("$$")).map((m) => m[1]);
}

/** Whether a value refers to at least one `${VAR}`. */
function hasReference(value: string): boolean {
  return referencedVariables(value).length > 0;
}

/** Key names that say they hold a secret: whole words of `_`/`-` separated names (not GIT_AUTHOR_NAME). */
const SECRET_KEY =
  /(^|[_-])(token|secret|pass|passwd|password|api[_-]?key|apikey|auth|credentials?|cookie|private[_-]?key)($|[_-])|authorization/i;

/**
 * `env`/`headers` keys of YAML servers whose names say they hold a secret but whose value is
 * written out literally: secrets are `${VAR}` references, never stored in the config file.
 */
export function literalSecretPaths(raw: unknown): (string | number)[][] {
  const servers = (raw as { mcp?: { mcp_servers?: unknown } } | null)?.mcp?.mcp_servers;
  if (!Array.isArray(servers)) return [];
  return servers.flatMap((entry, i) =>
    (["env", "headers"] as const).flatMap((field) => {
      const map = (entry as Record<string, unknown> | null)?.[field];
      if (!map || typeof map !== "object") return [];
      return Object.entries(map as Record<string, unknown>)
        .filter(([k, v]) => SECRET_KEY.test(k) && typeof v === "string" && !hasReference(v))
        .map(([k]) => ["mcp", "mcp_servers", i, field, k]);
    })
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a map" : JSON.stringify(value);
}
