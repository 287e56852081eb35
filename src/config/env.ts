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
