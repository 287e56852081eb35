/** @module Asking the operator to confirm on a terminal; off a terminal a flag must say yes. */
import { EngramError } from "../core/errors.ts";
import type { CommandContext } from "./context.ts";
import { stdinLines } from "./stdin_lines.ts";

/**
 * Asks `question` on stderr and reads the answer from stdin: `y` or `yes` confirms. Off a terminal
 * nobody can answer, so it fails with `offTerminal` (which names the flag to pass instead).
 */
export async function confirmOnTerminal(
  ctx: CommandContext,
  o: { question: string; offTerminal: string },
): Promise<boolean> {
  if (!ctx.stdinIsTerminal) throw new EngramError("invalid_argument", o.offTerminal);
  ctx.out.warn(o.question);
  const answer = (await stdinLines(ctx.stdin)())?.trim().toLowerCase();
  return answer === "y" || answer === "yes";
}
