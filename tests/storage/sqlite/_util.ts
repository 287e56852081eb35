/** @module Helpers for the storage tests: writer subprocesses and SQLite file tricks. */
import { ROOT } from "../../helpers.ts";

/** The writer fixture run by the multi-process tests. */
export const WRITER_SCRIPT = new URL("../../fixtures/store_writer.ts", import.meta.url).pathname;

/** One acknowledged write reported by the writer fixture. */
export interface Ack {
  id: string;
  path: string;
  version: number;
  content: string;
}

/** Complete lines (without the newline) of a byte stream; an unterminated tail is dropped. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
}

/** A running writer fixture. */
export class Writer implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly #lines: AsyncGenerator<string>;
  readonly #stderr: Promise<string>;
  #stdinClosed = false;

  constructor(dbFile: string, mode: "distinct" | "same-path" | "loop", writer: number, count = 0) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        WRITER_SCRIPT,
        dbFile,
        mode,
        String(writer),
        String(count),
      ],
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#lines = lines(this.child.stdout);
    this.#stderr = new Response(this.child.stderr).text();
  }

  /** Resolves once the writer has opened the store. */
  async ready(): Promise<void> {
    const first = await this.#lines.next();
    if (first.done || first.value !== "ready") {
      throw new Error(`writer did not start: ${first.value ?? ""}\n${await this.#stderr}`);
    }
  }

  /** Lets the writer start writing. */
  async go(): Promise<void> {
    this.#stdinClosed = true;
    const w = this.child.stdin.getWriter();
    await w.write(new TextEncoder().encode("go\n"));
    await w.close();
  }

  /** The next acknowledged write, or null when the writer's stdout ended. */
  async next(): Promise<Ack | null> {
    const r = await this.#lines.next();
    return r.done ? null : JSON.parse(r.value) as Ack;
  }

  /** Every remaining acknowledgement, until stdout ends. */
  async rest(): Promise<Ack[]> {
    const out: Ack[] = [];
    for (let a = await this.next(); a; a = await this.next()) out.push(a);
    return out;
  }

  /** The exit status and everything written to stderr. */
  async finish(): Promise<{ code: number; signal: Deno.Signal | null; stderr: string }> {
    const status = await this.child.status;
    return { code: status.code, signal: status.signal, stderr: await this.#stderr };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.child.status;
    if (!this.#stdinClosed) await this.child.stdin.close().catch(() => {});
    await this.#lines.return(undefined);
    await this.child.stdout.cancel().catch(() => {});
    await this.#stderr.catch(() => "");
  }
}

/** How a path is made read-only: chmod for a normal user; root ignores modes, so chattr +i. */
export type ReadOnlyMethod = "chmod" | "chattr";

async function chattr(flag: "+i" | "-i", path: string): Promise<boolean> {
  try {
    const out = await new Deno.Command("chattr", { args: [flag, path], stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Finds a way to make files read-only that holds for this user, or explains why there is none.
 * Root ignores file modes (and `Deno.uid()` needs --allow-sys), so this tries it out: chmod
 * first, then the immutable attribute, which binds root too where the file system has it.
 */
export async function readOnlyMethod(): Promise<ReadOnlyMethod | { skip: string }> {
  const dir = await Deno.makeTempDir({ prefix: "engram-ro-probe-" });
  const file = `${dir}/probe`;
  await Deno.writeTextFile(file, "x");
  const blocksWrite = async () => {
    try {
      await Deno.writeTextFile(file, "y");
      return false;
    } catch {
      return true;
    }
  };
  try {
    await Deno.chmod(file, 0o444);
    if (await blocksWrite()) return "chmod";
    await Deno.chmod(file, 0o644);
    if (!(await chattr("+i", file))) {
      return { skip: "chmod does not stop writes here (running as root?) and chattr +i failed" };
    }
    if (await blocksWrite()) return "chattr";
    return { skip: "neither chmod nor chattr +i stops writes here" };
  } finally {
    await chattr("-i", file);
    await Deno.remove(dir, { recursive: true });
  }
}

/** Makes a file or directory read-only; the returned function undoes it. */
export async function makeReadOnly(
  path: string,
  method: ReadOnlyMethod,
): Promise<() => Promise<void>> {
  if (method === "chattr") {
    assertOk(await chattr("+i", path), `chattr +i ${path}`);
    return async () => void await chattr("-i", path);
  }
  const { mode, isDirectory } = await Deno.stat(path);
  await Deno.chmod(path, isDirectory ? 0o555 : 0o444);
  return () => Deno.chmod(path, mode ?? 0o755);
}

function assertOk(ok: boolean, what: string) {
  if (!ok) throw new Error(`${what} failed`);
}
