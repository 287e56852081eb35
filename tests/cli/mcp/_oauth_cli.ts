/**
 * @module What the CLI tests of OAuth upstreams share: `engram mcp auth login` run as a real
 * process with the test playing the person's browser, and a real pseudo-terminal (util-linux
 * `script`) the test types into when a question shows, for `engram mcp review`'s login step.
 */
import assert from "node:assert/strict";
import { playBrowser } from "../../fixtures/oauth/oauth_upstream.ts";
import { engramCommandArgs, engramEnv } from "../../helpers.ts";

/** The authorization URL a login printed (indented by two spaces or more), if it printed one. */
export function printedUrl(text: string): string | undefined {
  return text.match(/^ {2,}(http\S+)$/m)?.[1];
}

/**
 * Runs `engram mcp auth login NAME` in `dir`, answering the URL it prints as a browser would;
 * returns its exit code and output once it ends.
 */
export async function loginThroughCli(dir: string, name = "docs") {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(["mcp", "auth", "login", name]),
    cwd: dir,
    env: engramEnv(dir),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
    url = printedUrl(stdout);
  }
  assert.ok(url, `the login printed no URL:\n${stdout}`);
  const back = await playBrowser(url);
  assert.equal(back.status, 200, "the callback page says it went well");
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
  }
  const stderr = await new Response(child.stderr).text();
  return { code: (await child.status).code, stdout, stderr, url };
}

/** `engram …` on a pseudo-terminal the test types into as questions show. */
export interface TerminalRun extends AsyncDisposable {
  /** Everything the terminal showed so far, without `\r`. */
  screen(): string;
  /** Waits until the screen holds `text` (after what was already waited for); fails if it ends. */
  waitFor(text: string | RegExp): Promise<string>;
  /** Types `text` into the terminal. */
  type(text: string): Promise<void>;
  /** Waits for the process to end: its exit code and the whole screen. */
  done(): Promise<{ code: number; screen: string }>;
}

/** Starts `engram ARGS` in `dir` on a pseudo-terminal. */
export function onTerminal(args: string[], dir: string): TerminalRun {
  const command = [Deno.execPath(), ...engramCommandArgs(args)]
    .map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    cwd: dir,
    env: engramEnv(dir),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stdin = child.stdin.getWriter();
  let raw = "";
  let seen = 0;
  let ended = false;
  const screen = () => raw.replaceAll("\r\n", "\n");
  const more = async () => {
    const { value, done } = await reader.read();
    if (done) ended = true;
    else raw += value;
  };
  return {
    screen,
    async waitFor(text) {
      for (;;) {
        const rest = screen().slice(seen);
        const at = typeof text === "string" ? rest.indexOf(text) : rest.search(text);
        if (at >= 0) {
          const found = typeof text === "string" ? text : rest.match(text)![0];
          seen += at + found.length;
          return found;
        }
        assert.ok(!ended, `the terminal ended before showing ${text}:\n${screen()}`);
        await more();
      }
    },
    async type(text) {
      await stdin.write(new TextEncoder().encode(text));
    },
    async done() {
      while (!ended) await more();
      await stdin.close().catch(() => {});
      await child.stderr.cancel();
      return { code: (await child.status).code, screen: screen() };
    },
    async [Symbol.asyncDispose]() {
      if (ended) return;
      try {
        child.kill("SIGKILL");
      } catch {
        // It ended meanwhile.
      }
      await stdin.close().catch(() => {});
      await reader.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
      await child.status;
    },
  };
}
