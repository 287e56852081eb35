/** @module The only place that reads the process environment. */

/** A snapshot of the variables engram reads. */
export interface EnvSnapshot {
  get(name: string): string | undefined;
}

/** The live process environment (needs --allow-env; read once at start-up, before env is revoked). */
export function processEnv(): EnvSnapshot {
  const vars = Deno.env.toObject();
  return { get: (name) => vars[name] };
}

/** An environment from a plain object (tests, embedding). */
export function envFrom(vars: Record<string, string>): EnvSnapshot {
  return { get: (name) => vars[name] };
}

/**
 * The OS user running engram, for the audit log's operator actions: `USER`, else `LOGNAME`, else
 * `USERNAME` (Windows), else "unknown" — read from the environment so no extra permission is needed.
 */
export function operatorName(env: EnvSnapshot): string {
  return env.get("USER") || env.get("LOGNAME") || env.get("USERNAME") || "unknown";
}

/**
 * Text as the part of an environment variable name (`api-key` → `API_KEY`): upper case, and `_`
 * for anything but A-Z and 0-9. Suggested names and imported references are written this way.
 */
export function envNamePart(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}
