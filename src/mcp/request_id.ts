/**
 * @module JSON-RPC request ids that a JavaScript number cannot hold exactly, found in the message's
 * source text. `JSON.parse` rounds `9007199254740993` to `…992` and `4503599627370495.5` to
 * `…496`: a reply would then carry an id the client never sent, and the SDK drops such requests
 * unanswered. Every transport refuses them up front with -32600 and `id: null`.
 */

/** Longest part of a refused id the error message quotes (an id may be a megabyte of digits). */
const QUOTED_ID_CHARS = 40;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A JSON number token: sign, integer part, fraction, exponent. */
const NUMBER_PATTERN = String.raw`-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?`;
const WHOLE_NUMBER = new RegExp(`^${NUMBER_PATTERN}$`);

/**
 * Whether the JSON number written as `source` is an integer that a JavaScript number holds
 * exactly (|n| ≤ 2^53 − 1), judged on the text: `1e2` and `100.0` are 100; `1.5`, `1e-400` and
 * `9007199254740993` are not ids engram can echo.
 */
export function isRepresentableId(source: string): boolean {
  const m = WHOLE_NUMBER.exec(source);
  if (!m) return false;
  let digits = (m[1] + (m[2] ?? "")).replace(/^0+/, "");
  if (digits === "") return true; // zero, however written
  let exponent = Number(m[3] ?? 0) - (m[2]?.length ?? 0);
  const trimmed = digits.replace(/0+$/, "");
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  // Past 16 digits the value exceeds 2^53 − 1, so there is no need to build a huge number.
  if (exponent < 0 || digits.length + exponent > 16) return false;
  return Number.isSafeInteger(Number(digits + "0".repeat(exponent)));
}

/**
 * The source text of `value.id` when it is a number written in a way {@link isRepresentableId}
 * refuses, else undefined. `value` is what `JSON.parse(text)` returned; the source is read only
 * when the parsed id is a number, so string ids and notifications cost nothing.
 */
export function unrepresentableId(value: unknown, text: string): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  if (typeof (value as { id?: unknown }).id !== "number") return undefined;
  const source = topLevelIdSource(text);
  // A number id whose source cannot be found is not one to trust either.
  if (source === undefined) return String((value as { id: number }).id);
  return isRepresentableId(source) ? undefined : source;
}

/** The message of the -32600 reply to a request whose id {@link unrepresentableId} found. */
export function unrepresentableIdMessage(source: string): string {
  const quoted = source.length > QUOTED_ID_CHARS ? `${source.slice(0, QUOTED_ID_CHARS)}…` : source;
  return `Invalid Request: id ${quoted} is not an integer a JSON-RPC peer can echo exactly; send a string id or an integer between -9007199254740991 and 9007199254740991`;
}

/**
 * The source of the number value of the top-level object's last `"id"` member (the one
 * `JSON.parse` keeps), or undefined. `text` must be valid JSON whose top level is an object. One
 * pass, skipping strings with `indexOf` so a large note costs little; a reviver with
 * `context.source` would do the same but costs a callback per value (100 ms for 100,000 numbers).
 */
function topLevelIdSource(text: string): string | undefined {
  let i = text.indexOf("{") + 1;
  let depth = 1;
  let expectKey = true;
  let found: string | undefined;
  // Sticky, so it matches exactly at the value; local, so no lastIndex outlives the call.
  const token = new RegExp(NUMBER_PATTERN, "y");
  while (i < text.length && depth > 0) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const key = text.slice(i, end + 1);
        expectKey = false;
        i = text.indexOf(":", end + 1) + 1;
        if (key === '"id"' || (key.includes("\\") && JSON.parse(key) === "id")) {
          while (/\s/.test(text[i])) i++;
          token.lastIndex = i;
          const m = token.exec(text);
          found = m ? m[0] : undefined;
          if (m) i += m[0].length;
        }
        continue;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 1) expectKey = true;
    i++;
  }
  return found;
}

/** Index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q === -1) return text.length;
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    from = q + 1;
  }
}
