/** @module Turning schema violations into one clear `invalid_argument`. */
import type { z } from "zod";
import { EngramError } from "./errors.ts";

/** Parses `value` with `schema`, or throws `invalid_argument` naming every bad field (up to eight). */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.slice(0, 8).map((i) => {
    const at = i.path.length ? i.path.join(".") : "arguments";
    return `${at}: ${i.message}`;
  });
  throw new EngramError("invalid_argument", `invalid arguments for ${what}: ${details.join("; ")}`);
}
