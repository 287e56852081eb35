/** @module Turning schema violations into one clear `invalid_argument`. */
import type { z } from "zod";
import { EngramError } from "./errors.ts";

/** Options of `parseInput`. */
export interface ParseOptions {
  /**
   * How the message names a bad field, from its path; by default the dotted path (`kinds.0`). The
   * CLI names the flag the user typed instead (`--kind`).
   */
  label?: (path: readonly PropertyKey[]) => string;
}

/** Parses `value` with `schema`, or throws `invalid_argument` naming every bad field (up to eight). */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  options: ParseOptions = {},
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const label = options.label ?? ((path) => path.map(String).join("."));
  const details = parsed.error.issues.slice(0, 8).map((i) => {
    const at = i.path.length ? label(i.path) : "arguments";
    return `${at}: ${i.message}`;
  });
  throw new EngramError("invalid_argument", `invalid arguments for ${what}: ${details.join("; ")}`);
}
