/**
 * @module Keeping upstream traces bounded (`mcp.trace_retention_days`): traces older than the
 * retention go. Called when a command that reaches upstreams or reads traces starts, so the table
 * never holds more than the retention plus one session's calls.
 */
import type { TraceReader } from "../ports/trace_log.ts";

const DAY_MS = 86_400_000;

/** The oldest trace time kept with `retentionDays` of retention at `now`. */
export function traceCutoff(retentionDays: number, now: Date = new Date()): string {
  return new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
}

/** Deletes traces older than `retentionDays`; returns how many went. */
export async function pruneExpiredTraces(
  traces: Pick<TraceReader, "pruneTraces">,
  options: { retentionDays: number; now?: Date },
): Promise<number> {
  return await traces.pruneTraces(traceCutoff(options.retentionDays, options.now));
}
