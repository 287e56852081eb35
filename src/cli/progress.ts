/** @module A progress bar on stderr, shown only on a terminal and never with --json. */
import cliProgress from "cli-progress";
import process from "node:process";
import type { CommandContext } from "./context.ts";

/** A progress bar on stderr when stdout is a terminal (as `engram ingest` shows); else silent. */
export function terminalProgress(
  ctx: CommandContext,
  verb: string,
  quiet: boolean,
): { update: (done: number, total: number) => void; done: () => void } {
  if (quiet || !ctx.out.isTerminal) return { update: () => {}, done: () => {} };
  const bar = new cliProgress.SingleBar({
    format: `${verb} {bar} {value}/{total}`,
    stream: process.stderr,
    hideCursor: true,
  }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update: (done, total) => {
      if (!started) bar.start(total, 0);
      started = true;
      bar.setTotal(total);
      bar.update(done);
    },
    done: () => {
      if (started) bar.stop();
    },
  };
}
