import assert from "node:assert/strict";
import { neutraliseTerminalText, terminalSafeJson } from "../../../src/core/text/terminal_text.ts";

/** Any character a terminal could act on, or a bidi override/isolate, or a style-marker noncharacter. */
// deno-lint-ignore no-control-regex
const ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufdd0-\ufdef]/;

Deno.test("neutraliseTerminalText shows ESC sequences as visible \\x1b text", () => {
  assert.equal(neutraliseTerminalText("a\x1b[6nb"), "a\\x1b[6nb");
  assert.equal(
    neutraliseTerminalText("\x1b]8;;http://x\x07link\x1b]8;;\x07"),
    "\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07",
  );
  assert.equal(neutraliseTerminalText("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
});

Deno.test("neutraliseTerminalText covers every C0 control but newline and tab, DEL and C1", () => {
  for (let c = 0; c <= 0x9f; c++) {
    if (c >= 0x20 && c < 0x7f) continue;
    const ch = String.fromCharCode(c);
    const out = neutraliseTerminalText(`x${ch}y`);
    if (ch === "\n" || ch === "\t") assert.equal(out, `x${ch}y`);
    else {
      assert.equal(out, `x\\x${c.toString(16).padStart(2, "0")}y`, `U+${c.toString(16)}`);
    }
  }
  assert.equal(neutraliseTerminalText("\r"), "\\x0d", "a carriage return could overwrite a line");
  assert.equal(neutraliseTerminalText("\x9b6n"), "\\x9b6n", "C1 CSI");
});

Deno.test("neutraliseTerminalText shows bidi overrides and isolates as \\uNNNN", () => {
  for (const c of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
    assert.equal(neutraliseTerminalText(String.fromCharCode(c)), `\\u${c.toString(16)}`);
  }
});

Deno.test("neutraliseTerminalText keeps ordinary text, accents, emoji and private-use icons", () => {
  const text = "Café — naïve 日本語 🚀 \ue0b0 tab\there\nnext line \\x1b literal";
  assert.equal(neutraliseTerminalText(text), text);
});

Deno.test("neutraliseTerminalText is idempotent and leaves nothing a terminal acts on", () => {
  const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("") +
    "\u202e\u2066\ufdd0\ufdd1\ufdef";
  const once = neutraliseTerminalText(all);
  assert.doesNotMatch(once.replaceAll(/[\n\t]/g, ""), ACTIVE);
  assert.equal(neutraliseTerminalText(once), once);
});

Deno.test("terminalSafeJson escapes DEL, C1 and bidi characters and keeps the same JSON value", () => {
  const value = { text: "a\x1b[6n\x7f\x9b\u202e\u2066 ok", n: 1 };
  const json = terminalSafeJson(JSON.stringify(value));
  assert.doesNotMatch(json, ACTIVE);
  assert.ok(json.includes("\\u009b") && json.includes("\\u202e") && json.includes("\\u007f"));
  assert.deepEqual(JSON.parse(json), value);
});
