/** @module Writing command output: JSON for scripts, aligned text for people, colour only on a terminal without NO_COLOR. */

/** Where and how a command writes. */
export interface Output {
  /** Writes a line to stdout. */
  line(text: string): void;
  /** Writes text to stdout without a newline (streamed answers). */
  write(text: string): void;
  /** Writes a value as pretty JSON to stdout. */
  json(value: unknown): void;
  /** Writes a line to stderr. */
  warn(text: string): void;
  /** Bold when colour is allowed. */
  bold(text: string): string;
  /** Dim when colour is allowed. */
  dim(text: string): string;
  /** stdout is a terminal. */
  isTerminal: boolean;
}

/** Output to the real stdout/stderr. */
export function consoleOutput(options: { noColor: boolean }): Output {
  const enc = new TextEncoder();
  const isTerminal = Deno.stdout.isTerminal();
  const color = isTerminal && !options.noColor;
  const write = (stream: typeof Deno.stdout, text: string, end = "\n") => {
    const bytes = enc.encode(text + end);
    let off = 0;
    while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
  };
  return {
    line: (text) => write(Deno.stdout, text),
    write: (text) => write(Deno.stdout, text, ""),
    json: (value) => write(Deno.stdout, JSON.stringify(value, null, 2)),
    warn: (text) => write(Deno.stderr, text),
    bold: (t) => (color ? `\x1b[1m${t}\x1b[22m` : t),
    dim: (t) => (color ? `\x1b[2m${t}\x1b[22m` : t),
    isTerminal,
  };
}

/** Left-aligned columns. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? "")].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  "))
    .join("\n");
}
