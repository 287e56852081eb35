/**
 * @module Reading a "since" value: an age back from now (`30m`, `12h`, `7d`, `2w`) or an RFC 3339
 * time or date. One set of units everywhere — `engram loops`, `engram mcp score` and the tools'
 * `since` — so `m` is minutes wherever it is typed (months are `4w`, `13w`…).
 */

/** Age units: each letter and how many milliseconds one of it is. */
const AGE_UNITS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** The unit letters, for patterns and messages. */
export const AGE_UNIT_LETTERS = "mhdw";

/**
 * The instant `value` names, as an ISO string: an age (digits, then one unit letter, as in `7d`)
 * back from `now`, or a time or date starting YYYY-MM-DD (a date alone is midnight UTC). Null when
 * it is neither.
 */
export function ageOrTime(value: string, options: { now: Date }): string | null {
  const age = /^(\d+)\s*([A-Za-z])$/.exec(value);
  if (age && Object.hasOwn(AGE_UNITS, age[2])) {
    return new Date(options.now.getTime() - Number(age[1]) * AGE_UNITS[age[2]]).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
