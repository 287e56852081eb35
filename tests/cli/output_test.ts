import assert from "node:assert/strict";
import { type ByteSink, consoleOutput, StdoutClosed, table } from "../../src/cli/output.ts";

/** A sink that keeps what was written. */
function sink(): ByteSink & { text: () => string } {
  const chunks: Uint8Array[] = [];
  return {
    writeSync(p) {
      chunks.push(p.slice());
      return p.length;
    },
    text: () => new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c]))),
  };
}

/** A sink whose reader has gone, as a pipe closed by `head` is. */
const closedPipe: ByteSink = {
  writeSync() {
    throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
  },
};

function output(o: { color: boolean }) {
  const stdout = sink();
  const stderr = sink();
  const out = consoleOutput({ noColor: !o.color, isTerminal: o.color, stdout, stderr });
  return { out, stdout, stderr };
}

const EVIL = "a\x1b[6n b\x1b]8;;http://x\x07link\x1b]8;;\x07 c\x9b d\u202e";
const SHOWN = "a\\x1b[6n b\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07 c\\x9b d\\u202e";

Deno.test("Output: line, write and warn show control characters from content as escapes", () => {
  const { out, stdout, stderr } = output({ color: false });
  out.line(EVIL);
  out.write(EVIL);
  out.warn(EVIL);
  assert.equal(stdout.text(), `${SHOWN}\n${SHOWN}`);
  assert.equal(stderr.text(), `${SHOWN}\n`);
});

Deno.test("Output: bold and dim become SGR on a colour terminal, and content inside is still neutralised", () => {
  const { out, stdout } = output({ color: true });
  out.line(`${out.bold(`1. ${EVIL}`)}  ${out.dim("/p")}`);
  assert.equal(stdout.text(), `\x1b[1m1. ${SHOWN}\x1b[22m  \x1b[2m/p\x1b[22m\n`);
});

Deno.test("Output: without colour, bold and dim add nothing", () => {
  const { out, stdout } = output({ color: false });
  out.line(`${out.bold("Title")}  ${out.dim("/p")}`);
  assert.equal(stdout.text(), "Title  /p\n");
});

Deno.test("Output: content cannot forge a style marker", () => {
  const { out, stdout } = output({ color: true });
  // A marker-shaped string without this process's nonce, and bare marker characters.
  const forged = `\ufdd0${"0".repeat(32)}b\ufdd1x\ufdd0`;
  out.line(forged);
  const text = stdout.text();
  assert.ok(!text.includes("\x1b"), text);
  assert.equal(text, `\\ufdd0${"0".repeat(32)}b\\ufdd1x\\ufdd0\n`);
});

Deno.test("Output: json is exact JSON with DEL, C1 and bidi escaped", () => {
  const { out, stdout } = output({ color: true });
  const value = { content: EVIL };
  out.json(value);
  const text = stdout.text();
  assert.deepEqual(JSON.parse(text), value);
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
});

Deno.test("Output: a closed stdout throws StdoutClosed once and then on every write", () => {
  const out = consoleOutput({
    noColor: true,
    isTerminal: false,
    stdout: closedPipe,
    stderr: sink(),
  });
  assert.equal(out.stdoutClosed, false);
  assert.throws(() => out.line("x"), StdoutClosed);
  assert.equal(out.stdoutClosed, true);
  assert.throws(() => out.write("y"), StdoutClosed);
  assert.throws(() => out.json({}), StdoutClosed);
});

Deno.test("Output: a closed stderr is ignored (nobody is left to tell)", () => {
  const out = consoleOutput({
    noColor: true,
    isTerminal: false,
    stdout: sink(),
    stderr: closedPipe,
  });
  out.warn("x");
});

Deno.test("table aligns columns as shown: escapes count at their shown width, style markers at none", () => {
  const { out, stdout } = output({ color: false });
  out.line(table([["name", "n"], [out.bold("ab"), "1"], ["a\x1bb", "2"]]));
  assert.equal(stdout.text(), "name    n\nab      1\na\\x1bb  2\n");
});
