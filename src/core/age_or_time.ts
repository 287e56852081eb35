/**
 * @module Reading a "since" value: an age back from now (`7d`, `12h`) or an RFC 3339 time or date.
 * What a unit letter means is the caller's: `m` is months for memory_open_loops and
 * memory_decisions (`sinceInstant`) but minutes for `engram mcp report` and `engram mcp score`
 * (`sinceTime`), so each passes its own table and words its own error.
 */

/** Age units: each letter and how many milliseconds one of it is. */
export type AgeUnits = Readonly<Record<string, number>>;

/**
 * The instant `value` names, as an ISO string: an age (digits, then one letter of `units`, as in
 * `7d`) back from `now`, or a time or date starting YYYY-MM-DD (a date alone is midnight UTC).
 * Null when it is neither.
 */
export function ageOrTime(value: string, options: { now: Date; units: AgeUnits }): string | null {
  const age = /^(\d+)\s*([A-Za-z])$/.exec(value);
  if (age && Object.hasOwn(options.units, age[2])) {
    return new Date(options.now.getTime() - Number(age[1]) * options.units[age[2]])
      .toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
