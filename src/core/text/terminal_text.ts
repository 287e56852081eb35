/**
 * @module Making untrusted text safe to show on a terminal. Stored notes, titles and upstream text
 * may carry escape sequences (cursor reports, OSC 8 links, colours, bidi overrides) that a terminal
 * would act on; here every such character is shown as a visible `\xNN` / `\uNNNN` escape instead.
 */

/**
 * Characters a terminal may act on: C0 controls but newline and tab, DEL, C1 controls, the bidi
 * embedding/override/isolate characters, and the noncharacters U+FDD0–U+FDEF (the Output's own
 * style markers are built from them, so content can never pass for one).
 */
// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef]/g;

/** The characters JSON leaves raw that a terminal would still act on (C0 is escaped by JSON). */
const UNSAFE_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every terminal-active character rendered visibly: `\x1b` for ESC (C0, DEL and C1 as
 * `\xNN`), `\u202e` for the bidi and marker characters. Newline and tab stay. Idempotent.
 */
export function neutraliseTerminalText(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}

/**
 * JSON text with DEL, C1 and bidi characters written as `\uNNNN` escapes: the same JSON value
 * (they only occur inside strings), but nothing a terminal would act on when printed raw.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function visibleEscape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}
