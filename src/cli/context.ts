/** @module What every command receives from main. */
import type { EnvSnapshot } from "../config/env.ts";
import type { Output } from "./output.ts";

/** The process surroundings a command runs in. */
export interface CommandContext {
  env: EnvSnapshot;
  cwd: string;
  out: Output;
  stdin: ReadableStream<Uint8Array>;
  /** stdin is a terminal: a person can answer a confirmation prompt. */
  stdinIsTerminal: boolean;
  stdout: WritableStream<Uint8Array>;
}

/** A command: parse its own argv, do the work, return an exit code. */
export type Command = (argv: string[], ctx: CommandContext) => Promise<number>;
