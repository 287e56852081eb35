/**
 * @module Editing a stored (imported or marketplace) server entry key by key, as `engram mcp set`
 * does (docs/upstream.md#editing-a-stored-server): which keys may change, how `KEY=VALUE` text
 * becomes a value, the same schema as a config entry checking the result, what changed in words
 * that never show an env value, and whether the signed launch manifest still holds.
 */
import {
  literalSecretPaths,
  type McpServerConfig,
  McpServerSchema,
  SECRET_REFERENCE,
} from "../../config/mcp_servers.ts";
import { EngramError } from "../../core/errors.ts";
import { manifestDigest } from "./launch/launch_manifest.ts";

/** One key `engram mcp set` changes. */
interface Setting {
  /** Only stdio servers have it (the launch), or only http and sse ones (the OAuth login). */
  only?: "stdio" | "remote";
  /** The allowed values, for errors and help. */
  allowed: string;
  /** The command-line text as the value the schema checks (the schema refuses what is wrong). */
  parse(text: string): unknown;
}

/** `true`/`false` as booleans; anything else is left for the schema to refuse. */
const bool = (text: string): unknown => text === "true" ? true : text === "false" ? false : text;

/**
 * A JSON array; with `commas`, a comma-separated list too (`allow_env=NODE_OPTIONS,PATH`: names
 * hold no comma, where an argument may).
 */
function list(key: string, example: string, o: { commas: boolean }) {
  return (text: string): unknown => {
    if (o.commas && !text.trimStart().startsWith("[")) {
      return text.split(",").map((s) => s.trim()).filter((s) => s !== "");
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new EngramError(
        "invalid_argument",
        `${key} is not a JSON array: ${JSON.stringify(text)}; write it as ${key}='${example}'`,
      );
    }
  };
}

/** Every key `engram mcp set` changes; `env.NAME` stands for each env variable. */
const SETTINGS: Record<string, Setting> = {
  sandbox_profile: {
    only: "stdio",
    allowed: "restricted, standard or disabled",
    parse: (t) => t,
  },
  network: { only: "stdio", allowed: "true or false", parse: bool },
  cwd: { only: "stdio", allowed: "an absolute directory or one under ~", parse: (t) => t },
  args: {
    only: "stdio",
    allowed: 'a JSON array of strings, e.g. \'["-y","pkg"]\'',
    parse: list("args", '["-y","pkg"]', { commas: false }),
  },
  "env.NAME": {
    only: "stdio",
    allowed: "any text; a secret as a ${VAR} reference",
    parse: (t) => t,
  },
  allow_env: {
    only: "stdio",
    allowed: "env variable names, as a JSON array or comma-separated",
    parse: list("allow_env", '["NODE_OPTIONS"]', { commas: true }),
  },
  request_timeout_ms: {
    allowed: "a whole number of milliseconds from 100 to 3600000",
    parse: (t) => /^\d+$/.test(t) ? Number(t) : t,
  },
  "expose.tier": { allowed: "read, write or admin", parse: (t) => t },
  trust: { allowed: "verified or user_added", parse: (t) => t },
  "oauth.client_id": {
    only: "remote",
    allowed: "the client ID the authorization server registered for you",
    parse: (t) => t,
  },
  "oauth.client_secret": {
    only: "remote",
    allowed: "a ${VAR} reference, never the secret itself",
    parse: (t) => t,
  },
  "oauth.client_id_metadata_document_url": {
    only: "remote",
    allowed: "an https:// URL with a path, where your client-ID metadata document is served",
    parse: (t) => t,
  },
  "oauth.scopes": {
    only: "remote",
    allowed: "OAuth scopes, as a JSON array or separated by commas or spaces",
    parse: (t) =>
      t.trimStart().startsWith("[")
        ? list("oauth.scopes", '["read","write"]', {
          commas: false,
        })(t)
        : t.split(/[\s,]+/).filter((x) => x !== ""),
  },
  "oauth.redirect_port": {
    only: "remote",
    allowed: "a port from 1 to 65535",
    parse: (t) => /^\d+$/.test(t) ? Number(t) : t,
  },
};

/** The keys, as help and errors list them. */
export const SETTABLE_KEYS: readonly string[] = Object.keys(SETTINGS);

/** One change asked for: a value to set, or a key to remove (back to its default). */
export interface SettingChange {
  key: string;
  /** Absent: remove the key. */
  value?: string;
}

/** What applying changes gives. */
export interface SettingsResult {
  /** The stored definition to write (without name, enabled and consent, as stored). */
  definition: Record<string, unknown>;
  /** What changed, one line each (`network: false → true`); env values are never shown. */
  changes: string[];
  /** The launch changed, so the stored manifest digest and signature were removed. */
  signatureDropped: boolean;
}

/** The setting of `key` (`env.X` is `env.NAME`), or `invalid_argument` listing the keys. */
function settingOf(key: string): Setting {
  const setting = key.startsWith("env.") && key.length > 4 ? SETTINGS["env.NAME"] : SETTINGS[key];
  if (setting && key !== "env.NAME") return setting;
  throw new EngramError(
    "invalid_argument",
    `unknown key "${key}"; engram mcp set changes: ${SETTABLE_KEYS.join(", ")}`,
  );
}

/** `KEY=VALUE` as a change; `invalid_argument` when there is no `=`. */
export function parseAssignment(text: string): SettingChange {
  const eq = text.indexOf("=");
  if (eq <= 0) {
    throw new EngramError(
      "invalid_argument",
      `expected KEY=VALUE, got ${JSON.stringify(text)}; keys: ${SETTABLE_KEYS.join(", ")}`,
    );
  }
  const key = text.slice(0, eq);
  settingOf(key);
  return { key, value: text.slice(eq + 1) };
}

/**
 * Applies `changes` to the stored `definition` of server `name`: each value checked by the
 * config entry's schema (`invalid_argument` naming the key and its allowed values), a literal
 * secret in env refused, and the manifest digest and signature dropped when the launch changed.
 */
export async function applySettings(
  name: string,
  definition: Record<string, unknown>,
  changes: readonly SettingChange[],
): Promise<SettingsResult> {
  const transport = definition.transport;
  const next = structuredClone(definition);
  for (const change of changes) {
    const setting = settingOf(change.key);
    if (setting.only === "stdio" && transport !== "stdio") {
      throw new EngramError(
        "invalid_argument",
        `server "${name}" is reached over ${transport}, not started: ${change.key} applies to stdio servers only`,
      );
    }
    if (setting.only === "remote" && transport === "stdio") {
      throw new EngramError(
        "invalid_argument",
        `server "${name}" is a stdio server: it gets its credentials from its env, not from an OAuth login; ${change.key} applies to http and sse servers only`,
      );
    }
    if (change.key === "trust" && change.value === "builtin") {
      throw new EngramError(
        "invalid_argument",
        `trust builtin is reserved for servers engram itself provides; allowed: ${setting.allowed}`,
      );
    }
    const value = change.value === undefined ? undefined : setting.parse(change.value);
    if (change.key.startsWith("env.")) refuseLiteralSecret(change.key, value);
    place(next, change.key, value);
  }
  const parsed = McpServerSchema.safeParse({ ...definition, name });
  // A stored entry that no longer validates can be mended here; every key then counts as changed.
  const before = parsed.success ? parsed.data : undefined;
  const after = McpServerSchema.safeParse({ ...next, name });
  if (!after.success) {
    const issue = after.error.issues[0];
    const key = changes.find((c) => sameKey(c.key, issue.path))?.key ?? issue.path.join(".");
    const allowed = SETTINGS[key]?.allowed ??
      (key.startsWith("env.") ? SETTINGS["env.NAME"].allowed : undefined);
    throw new EngramError(
      "invalid_argument",
      `${key}: ${issue.message}${allowed ? `; allowed: ${allowed}` : ""}`,
    );
  }
  const lines = changes.flatMap((c) => describe(c.key, before, after.data));
  const signatureDropped = await launchChanged(before, after.data) &&
    (next.manifest_digest !== undefined || next.manifest_signature !== undefined);
  if (signatureDropped) {
    delete next.manifest_digest;
    delete next.manifest_signature;
    lines.push("manifest_digest and manifest_signature: dropped (the launch changed)");
  }
  return { definition: next, changes: lines, signatureDropped };
}

/** Sets (or, with `value` undefined, removes) `key` in a raw definition. */
function place(def: Record<string, unknown>, key: string, value: unknown): void {
  const [head, sub] = key.split(/\.(.*)/s);
  if (sub === undefined) {
    if (value === undefined) delete def[head];
    else def[head] = value;
    return;
  }
  const map = { ...(def[head] as Record<string, unknown> | undefined ?? {}) };
  if (value === undefined) delete map[sub];
  else map[sub] = value;
  def[head] = map;
}

/** Whether a schema issue's path is the key of a change (`env.X` is `["env", "X"]`). */
function sameKey(key: string, path: readonly PropertyKey[]): boolean {
  const parts = key.split(/\.(.*)/s).filter((p) => p !== "");
  return parts.every((p, i) => String(path[i]) === p);
}

/** A secret written out literally is refused, as in the config file: it belongs in a reference. */
function refuseLiteralSecret(key: string, value: unknown): void {
  const variable = key.slice(4);
  const probe = { mcp: { mcp_servers: [{ env: { [variable]: value } }] } };
  if (typeof value !== "string" || literalSecretPaths(probe).length === 0) return;
  throw new EngramError(
    "invalid_argument",
    `${key} looks like a secret written out; store a reference instead: ${key}='\${${variable}}', and export ${variable} where engram runs`,
  );
}

/** Whether the launch manifest of `before` and `after` differ (stdio servers; a broken entry did). */
async function launchChanged(
  before: McpServerConfig | undefined,
  after: McpServerConfig,
): Promise<boolean> {
  if (after.transport !== "stdio") return false;
  if (before?.transport !== "stdio") return true;
  return await manifestDigest(before) !== await manifestDigest(after);
}

/** `key: old → new`, or nothing when the effective value is the same. */
function describe(
  key: string,
  before: McpServerConfig | undefined,
  after: McpServerConfig,
): string[] {
  const read = (c: McpServerConfig | undefined) => {
    let v: unknown = c;
    for (const part of key.split(/\.(.*)/s).filter((p) => p !== "")) {
      v = (v as Record<string, unknown> | undefined)?.[part];
    }
    return v;
  };
  const [was, now] = [read(before), read(after)];
  if (JSON.stringify(was) === JSON.stringify(now)) return [];
  const show = (v: unknown) => key.startsWith("env.") ? envShown(v) : shown(v);
  return [`${key}: ${show(was)} → ${show(now)}`];
}

/** A value in a change line: `(unset)` when absent, else its JSON (strings bare). */
function shown(v: unknown): string {
  if (v === undefined) return "(unset)";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** An env value in a change line: a `${VAR}` reference as written, never a literal value. */
function envShown(v: unknown): string {
  if (v === undefined) return "(unset)";
  return typeof v === "string" && SECRET_REFERENCE.test(v) ? v : "a literal value (not shown)";
}
