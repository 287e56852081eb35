/**
 * @module Writing command output: JSON for scripts, aligned text for people, colour only on a
 * terminal without NO_COLOR. Every human-readable write passes one choke point that shows control
 * characters from content as visible escapes (src/core/text/terminal_text.ts); the only escape sequences
 * that reach the terminal are the ones `bold()` and `dim()` ask for.
 */
import { neutraliseTerminalText, terminalSafeJson } from "../core/text/terminal_text.ts";

/** Where and how a command writes. */
export interface Output {
  /** Writes a line to stdout (control characters shown as escapes). */
  line(text: string): void;
  /** Writes text to stdout without a newline (streamed answers; control characters shown as escapes). */
  write(text: string): void;
  /** Writes a value as pretty JSON to stdout, exactly. */
  json(value: unknown): void;
  /** Writes a line to stderr (control characters shown as escapes). */
  warn(text: string): void;
  /** Bold when colour is allowed; only meaningful inside text given to line/write/warn. */
  bold(text: string): string;
  /** Dim when colour is allowed; only meaningful inside text given to line/write/warn. */
  dim(text: string): string;
  /** stdout is a terminal. */
  isTerminal: boolean;
  /** The reader of stdout went away (e.g. `| head`); the command should stop quietly. */
  readonly stdoutClosed: boolean;
}

/** Thrown by a stdout write once the reader has gone, so the command stops writing. */
export class StdoutClosed extends Error {
  constructor() {
    super("stdout was closed by its reader");
    this.name = "StdoutClosed";
  }
}

/** A synchronous byte sink, as Deno.stdout and Deno.stderr are. */
export interface ByteSink {
  writeSync(p: Uint8Array): number;
}

const SGR = { b: "\x1b[1m", d: "\x1b[2m", e: "\x1b[22m" } as const;

/** The shape of any style marker, for measuring text that holds some. */
const ANY_MARKER = /\ufdd0[0-9a-f]{32}[bde]\ufdd1/g;

/** Output to the real stdout/stderr (or the given sinks). */
export function consoleOutput(
  options: { noColor: boolean; stdout?: ByteSink; stderr?: ByteSink; isTerminal?: boolean },
): Output {
  const stdout = options.stdout ?? Deno.stdout;
  const stderr = options.stderr ?? Deno.stderr;
  const enc = new TextEncoder();
  const isTerminal = options.isTerminal ?? Deno.stdout.isTerminal();
  const color = isTerminal && !options.noColor;
  // Style markers carry a per-process random nonce and are built from noncharacters that content
  // is never allowed to keep, so stored text cannot forge one.
  const nonce = crypto.randomUUID().replaceAll("-", "");
  const marker = (kind: keyof typeof SGR) => `\ufdd0${nonce}${kind}\ufdd1`;
  const markers = new RegExp(`\ufdd0${nonce}([bde])\ufdd1`, "g");
  const render = (text: string): string => {
    let out = "";
    let last = 0;
    for (const m of text.matchAll(markers)) {
      out += neutraliseTerminalText(text.slice(last, m.index));
      if (color) out += SGR[m[1] as keyof typeof SGR];
      last = m.index + m[0].length;
    }
    return out + neutraliseTerminalText(text.slice(last));
  };
  const emit = (sink: ByteSink, text: string) => {
    const bytes = enc.encode(text);
    let off = 0;
    while (off < bytes.length) off += sink.writeSync(bytes.subarray(off));
  };
  let stdoutClosed = false;
  const toStdout = (text: string) => {
    if (stdoutClosed) throw new StdoutClosed();
    try {
      emit(stdout, text);
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
      stdoutClosed = true;
      throw new StdoutClosed();
    }
  };
  return {
    line: (text) => toStdout(render(text) + "\n"),
    write: (text) => toStdout(render(text)),
    json: (value) => toStdout(terminalSafeJson(JSON.stringify(value, null, 2)) + "\n"),
    warn: (text) => {
      try {
        emit(stderr, render(text) + "\n");
      } catch (err) {
        // Nobody is left to tell.
        if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
      }
    },
    bold: (t) => `${marker("b")}${t}${marker("e")}`,
    dim: (t) => `${marker("d")}${t}${marker("e")}`,
    isTerminal,
    get stdoutClosed() {
      return stdoutClosed;
    },
  };
}

/** Left-aligned columns, measured as the terminal will show them. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const shown = rows.map((r) => r.map(shownWidth));
  const widths = rows[0].map((_, i) => Math.max(...shown.map((w) => w[i] ?? 0)));
  return rows.map((r, j) =>
    r.map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(widths[i] - shown[j][i])))
      .join("  ")
  ).join("\n");
}

function shownWidth(cell: string): number {
  return [...neutraliseTerminalText(cell.replace(ANY_MARKER, ""))].length;
}
