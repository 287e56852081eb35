/**
 * @module Reading other clients' MCP configs into engram server entries: the `mcpServers` object
 * of Claude Desktop, Claude Code's `.mcp.json` and Cursor, and VS Code's `servers` (its mcp.json,
 * or `mcp.servers` in settings.json; comments and trailing commas as VS Code allows). Nothing is
 * trusted: every imported server starts disabled, `user_added`, consent pending, unsigned.
 *
 * Secrets: every literal value in `env` and `headers` (one that is not already a `${VAR}`
 * reference) becomes `${ENGRAM_IMPORT_<SERVER>_<KEY>}`, because no rule can tell a token from a
 * harmless setting and the imported entries are stored in engram's database. The report lists
 * each variable to set; the values stay in the original file.
 *
 * Each imported stdio server also lists what its launch will need that the imported entry does
 * not give it (network for a package runner, the standard sandbox for a host path): see
 * launch_needs.ts.
 */
import { envNamePart } from "../../../config/env.ts";
import {
  ABSOLUTE_CWD,
  type McpServerConfig,
  McpServerSchema,
  SERVER_NAME,
  SERVER_NAME_RULE,
} from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { commandChecks, metacharactersIn } from "../launch/command_rules.ts";
import { parseJsonWithComments } from "./json_with_comments.ts";
import { type LaunchNeed, launchNeeds } from "./launch_needs.ts";

/** A server the import would add. */
export interface ImportedServer {
  config: McpServerConfig;
  /** Its name in the imported file. */
  from: string;
  /** What the import changed or what will still block it (split command, renamed, …). */
  notes: string[];
  /** What its launch will need beyond the imported entry, each with the command that gives it. */
  needs: LaunchNeed[];
}

/** A server the import leaves out, and why. */
export interface SkippedServer {
  name: string;
  reason: string;
}

/** An environment variable to set before the imported server can start. */
export interface SecretToSet {
  variable: string;
  server: string;
  field: "env" | "headers";
  /** The key in the imported file whose value the variable must hold. */
  key: string;
}

/** What `engram mcp import FILE` would do. */
export interface ImportReport {
  file: string;
  /** The object servers were read from: `mcpServers`, `servers` or `mcp.servers`. */
  source: string;
  servers: ImportedServer[];
  skipped: SkippedServer[];
  secrets: SecretToSet[];
}

/** Where the launches would run: the data directory (sandboxes live there) and `$HOME` for `~`. */
export interface ImportSurroundings {
  dataDir: string;
  home?: string;
}

/** Reads and converts an import file; unreadable or non-JSON input is one line naming the file. */
export async function readImportFile(
  file: string,
  options: { existingNames?: readonly string[]; launch?: ImportSurroundings } = {},
): Promise<ImportReport> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    throw new EngramError(
      "invalid_argument",
      `cannot read import file ${file}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return parseImport(text, { file, existingNames: options.existingNames, launch: options.launch });
}

/** Converts the text of an import file (see the module doc). */
export function parseImport(
  text: string,
  options: { file: string; existingNames?: readonly string[]; launch?: ImportSurroundings },
): ImportReport {
  const { file } = options;
  const root = parseJsonWithComments(text, {
    what: `import file ${file}`,
    hint: "check that it is an MCP client config such as .mcp.json",
  });
  const found = serversObject(root);
  if (!found) {
    throw new EngramError(
      "invalid_argument",
      `import file ${file} has no "mcpServers" or "servers" object; point at a Claude Desktop, Claude Code (.mcp.json), Cursor or VS Code MCP config`,
    );
  }
  const report: ImportReport = {
    file,
    source: found.source,
    servers: [],
    skipped: [],
    secrets: [],
  };
  const taken = new Set((options.existingNames ?? []).map((n) => n.toLowerCase()));
  for (const [key, entry] of Object.entries(found.servers)) {
    const name = serverName(key);
    if (!name) {
      report.skipped.push({
        name: key,
        reason: `its name cannot be made into one that ${SERVER_NAME_RULE}`,
      });
      continue;
    }
    if (taken.has(name.toLowerCase())) {
      report.skipped.push({
        name: key,
        reason: `a server named ${JSON.stringify(name)} is already configured`,
      });
      continue;
    }
    const converted = convert(name, entry);
    if ("reason" in converted) {
      report.skipped.push({ name: key, reason: converted.reason });
      continue;
    }
    taken.add(name.toLowerCase());
    const notes = name === key ? [] : [`renamed from ${JSON.stringify(key)}`];
    report.servers.push({
      config: converted.config,
      from: key,
      notes: [...notes, ...converted.notes],
      needs: converted.config.transport === "stdio"
        ? launchNeeds(converted.config, options.launch ?? { dataDir: "" })
        : [],
    });
    report.secrets.push(...converted.secrets);
  }
  return report;
}

type Converted =
  | { config: McpServerConfig; notes: string[]; secrets: SecretToSet[] }
  | { reason: string };

function convert(name: string, entry: unknown): Converted {
  if (!isObject(entry)) return { reason: "its entry is not an object" };
  const notes: string[] = [];
  const secrets: SecretToSet[] = [];
  const type = typeof entry.type === "string" ? entry.type.toLowerCase() : undefined;
  const transport = type === undefined ? (typeof entry.url === "string" ? "http" : "stdio") : ({
    stdio: "stdio",
    http: "http",
    "streamable-http": "http",
    streamablehttp: "http",
    sse: "sse",
  } as Record<string, string>)[type.replace(/_/g, "-")];
  if (!transport) {
    return { reason: `its type ${JSON.stringify(entry.type)} is not stdio, http or sse` };
  }
  const governance = { enabled: false, trust: "user_added", client_consent: "pending" };
  let candidate: Record<string, unknown>;
  if (transport === "stdio") {
    const command = splitCommand(entry.command, entry.args);
    if ("reason" in command) return command;
    notes.push(...command.notes);
    candidate = {
      name,
      transport,
      command: command.command,
      args: command.args,
      env: references(entry.env, { server: name, field: "env", secrets, notes }),
      ...importedCwd(entry.cwd, notes),
      ...governance,
    };
    if (entry.envFile !== undefined) notes.push("envFile ignored: add its variables to env");
    const blocked = commandChecks(command.command).find((c) => !c.ok);
    if (blocked) notes.push(`will stay blocked: ${blocked.detail}`);
  } else {
    candidate = {
      name,
      transport,
      url: entry.url,
      headers: references(entry.headers, { server: name, field: "headers", secrets, notes }),
      ...governance,
    };
  }
  const parsed = McpServerSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { reason: `${issue.path.join(".") || "entry"}: ${issue.message}` };
  }
  return { config: parsed.data, notes, secrets };
}

/**
 * `"command": "npx -y pkg"` becomes command `npx` and args `["-y", "pkg", ...args]` only when
 * splitting at spaces is all a shell would do: no metacharacters, quotes or backslashes.
 */
function splitCommand(
  command: unknown,
  args: unknown,
): { command: string; args: string[]; notes: string[] } | { reason: string } {
  if (Array.isArray(command)) {
    return {
      reason: "its command is a list; write the executable in command and the rest in args",
    };
  }
  if (typeof command !== "string" || command.trim() === "") return { reason: "it has no command" };
  if (args !== undefined && !Array.isArray(args)) return { reason: "its args is not a list" };
  const rest = (args ?? []).map(String);
  const words = command.trim().split(/\s+/);
  if (words.length === 1) return { command: words[0], args: rest, notes: [] };
  const meta = metacharactersIn(command);
  if (meta.length || /["'\\]/.test(command)) {
    const what = meta.length
      ? `shell metacharacters (${meta.join(", ")})`
      : "quotes or backslashes";
    return {
      reason: `its command ${
        JSON.stringify(command)
      } holds ${what}, so splitting it would need a shell, which engram never runs; write the executable in command and each argument in args`,
    };
  }
  return {
    command: words[0],
    args: [...words.slice(1), ...rest],
    notes: [
      `split command ${JSON.stringify(command)} into command ${JSON.stringify(words[0])} and args ${
        JSON.stringify(words.slice(1))
      }`,
    ],
  };
}

const PLAIN_REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * env/headers values: `${VAR}` and VS Code's `${env:VAR}` are kept; anything else becomes a
 * reference, whose variable is added to `secrets` (and a note to `notes` when one is due).
 */
function references(
  values: unknown,
  into: { server: string; field: "env" | "headers"; secrets: SecretToSet[]; notes: string[] },
): unknown {
  const { server, field, secrets, notes } = into;
  if (values === undefined) return {};
  if (!isObject(values)) return values; // refused by the schema, with its reason
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(values)) {
    if (typeof raw === "object" && raw !== null) {
      out[key] = raw; // refused by the schema, with its reason
      continue;
    }
    const value = String(raw);
    const normalised = value.replace(PLAIN_REFERENCE, (_m, name: string) => `\${${name}}`);
    const others = normalised.replace(PLAIN_REFERENCE, "").includes("${");
    if (hasPlain(value) && !others) {
      out[key] = normalised;
      continue;
    }
    const variable = uniqueVariable(
      `ENGRAM_IMPORT_${envNamePart(server)}_${envNamePart(key)}`,
      secrets,
    );
    if (others) {
      notes.push(
        `${field}.${key} holds a \${...} form engram does not expand; set ${variable} instead`,
      );
    }
    out[key] = `\${${variable}}`;
    secrets.push({ variable, server, field, key });
  }
  return out;
}

function hasPlain(value: string): boolean {
  return value.search(PLAIN_REFERENCE) !== -1;
}

function uniqueVariable(base: string, secrets: SecretToSet[]): string {
  let name = base;
  for (let i = 2; secrets.some((s) => s.variable === name); i++) name = `${base}_${i}`;
  return name;
}

function importedCwd(cwd: unknown, notes: string[]): { cwd?: string } {
  if (cwd === undefined) return {};
  if (typeof cwd === "string" && ABSOLUTE_CWD.test(cwd)) return { cwd };
  notes.push(`cwd ${JSON.stringify(cwd)} dropped: engram needs an absolute path`);
  return {};
}

/** A valid server name made from an imported key (`github.com/x` → `github-com-x`), or null. */
export function serverName(key: string): string | null {
  if (SERVER_NAME.test(key)) return key;
  const name = key.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 32)
    .replace(/-+$/, "");
  return SERVER_NAME.test(name) ? name : null;
}

function serversObject(
  root: unknown,
): { source: string; servers: Record<string, unknown> } | null {
  if (!isObject(root)) return null;
  if (isObject(root.mcpServers)) return { source: "mcpServers", servers: root.mcpServers };
  if (isObject(root.servers)) return { source: "servers", servers: root.servers };
  if (isObject(root.mcp) && isObject(root.mcp.servers)) {
    return { source: "mcp.servers", servers: root.mcp.servers };
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
