/** @module Numeric config settings: a number or its digits in a string, refused with a plain message. */
import { z } from "zod";

/**
 * An integer in `min..max` (or `min` and up), given as a number or as digits in a string, since
 * `port: ${ENGRAM_PORT}` interpolation always yields a string. Anything else is refused as
 * `must be a whole number 0..65535, got "eighty"` rather than zod's `received NaN`.
 */
export function wholeNumber(min: number, max?: number) {
  const error = refusal(`a whole number ${range(min, max)}`);
  const number = z.number({ error }).int({ error }).min(min, { error });
  return z.preprocess(
    (v) => (typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    max === undefined ? number : number.max(max, { error }),
  );
}

/** A number (fractions allowed) in `min..max`, as a number or a decimal string. */
export function decimalNumber(min: number, max: number) {
  const error = refusal(`a number ${range(min, max)}`);
  return z.preprocess(
    (v) => (typeof v === "string" && /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(v) ? Number(v) : v),
    z.number({ error }).min(min, { error }).max(max, { error }),
  );
}

function range(min: number, max: number | undefined): string {
  return max === undefined ? `${min} or more` : `${min}..${max}`;
}

function refusal(what: string): (issue: { input?: unknown }) => string {
  return (issue) => `must be ${what}, got ${JSON.stringify(issue.input) ?? "nothing"}`;
}
