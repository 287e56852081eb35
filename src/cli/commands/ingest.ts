/** @module `engram ingest PATH|URL...`: files, folders and web pages into a brain. */
import { EngramError, toEngramError } from "../../core/errors.ts";
import { HOST_PATTERN_FORMS, parseHostPattern } from "../../core/host_pattern.ts";
import type { IngestResponse } from "../../core/types.ts";
import { type Format, formatOf, FORMATS } from "../../ingest/formats.ts";
import { ingestFile } from "../../ingest/ingest_file.ts";
import { ingestUrl } from "../../ingest/ingest_url.ts";
import { walkFiles } from "../../ingest/walk.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { terminalProgress } from "../progress.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";
import { ROLLED_BACK } from "../../core/ports/unit_of_work.ts";

/** Usage of `engram ingest`. */
export const INGEST_SPEC: CommandSpec = {
  name: "ingest",
  usage:
    "engram ingest PATH|URL... [--brain SLUG] [--glob PATTERN] [--exclude PATTERN]... [--as FORMAT] [--allow-host HOST[:PORT]]... [--json]",
  summary:
    "Ingest files, folders and web pages. A folder is walked (its .gitignore files are honoured, dot-folders skipped)\nand stored under /ingest/<folder>/...; a file under /ingest/<name>; a URL under /ingest/web/<host>/....\nUnchanged files are skipped. Failures are listed and the rest still ingested; the exit code is 1 if any failed.",
  options: {
    brain: { type: "string", help: "SLUG  brain slug or id" },
    glob: {
      type: "string",
      help: "PATTERN  only files whose path in the folder matches, e.g. '**/*.md'",
    },
    exclude: {
      type: "string",
      multiple: true,
      help: "PATTERN  skip paths matching this .gitignore-style pattern",
    },
    as: {
      type: "string",
      help: "FORMAT  markdown, text, pdf or json (else from each file's extension)",
    },
    "allow-host": {
      type: "string",
      multiple: true,
      help:
        "HOST[:PORT]  fetch this loopback or private host for this run (as ingest.allowed_url_hosts)",
    },
    json: { type: "boolean", help: "print a JSON summary" },
  },
  positionals: [1, Infinity],
};

/** Files ingested at once. */
const CONCURRENCY = 8;
/** Files committed per transaction: one commit per batch, and the write lock is released between batches. */
const BATCH = 200;

interface Item {
  source: string;
  kind: "file" | "url";
  path?: string;
}

/** Ingests every argument, reporting progress and a summary. */
export async function ingestCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, INGEST_SPEC, ctx.out);
  if (!args) return 0;
  const as = args.values.as as string | undefined;
  if (as !== undefined && !(FORMATS as readonly string[]).includes(as)) {
    throw usageError(INGEST_SPEC, `--as must be one of ${FORMATS.join(", ")}, got "${as}"`);
  }
  const allowHosts = (args.values["allow-host"] as string[] | undefined) ?? [];
  for (const entry of allowHosts) {
    if (!parseHostPattern(entry)) {
      throw usageError(INGEST_SPEC, `--allow-host "${entry}" is not ${HOST_PATTERN_FORMS}`);
    }
  }
  const started = performance.now();
  const { items, skipped } = await expand(args.positionals, {
    cwd: ctx.cwd,
    glob: args.values.glob as string | undefined,
    exclude: args.values.exclude as string[] | undefined,
    explicitFormat: as !== undefined,
  });
  const done: { source: string; result?: IngestResponse; error?: string }[] = [];
  await withRuntime(ctx, configFlags(args.values), async (runtime, config) => {
    const progress = terminalProgress(ctx, "ingesting", args.values.json === true);
    let finished = 0;
    // A few files in flight at once: reading and extracting overlap while SQLite writes one at a time.
    const results: ({ source: string; result?: IngestResponse; error?: string } | undefined)[] = [];
    let next = 0;
    let batchEnd = 0;
    const worker = async () => {
      while (next < batchEnd) {
        const index = next++;
        const item = items[index];
        try {
          const result = item.kind === "url"
            ? await ingestUrl(runtime.service, CLI_CALLER, {
              url: item.source,
              brain: args.values.brain as string | undefined,
              // The operator's own run may reach what agents (memory_ingest_url) never can.
              allowHosts: [...config.ingest.allowed_url_hosts, ...allowHosts],
              allowFlag: "--allow-host",
              timeoutMs: config.ingest.url_timeout_ms,
            })
            : await ingestFile(runtime.service, CLI_CALLER, {
              path: item.source,
              brain: args.values.brain as string | undefined,
              as: as as Format | undefined,
              roots: null,
              cwd: ctx.cwd,
              docPath: item.path,
            });
          results[index] = { source: item.source, result };
        } catch (err) {
          const e = toEngramError(err);
          if (e.code === "no_brain") throw e;
          results[index] = { source: item.source, error: `${e.code}: ${e.message}` };
        }
        progress.update(++finished, items.length);
      }
    };
    while (next < items.length) {
      const from = next;
      batchEnd = Math.min(next + BATCH, items.length);
      const run = () => Promise.all(Array.from({ length: CONCURRENCY }, worker));
      try {
        await runtime.service.atomically(run);
      } catch (err) {
        if ((err as Error).cause !== ROLLED_BACK) throw err;
        // Replay the rolled-back batch one file per transaction, so only the bad file fails.
        next = from;
        finished -= batchEnd - from;
        await run();
      }
    }
    done.push(...results.filter((r) => r !== undefined));
    progress.done();
  }, { mode: "ingest" });
  return report(done, {
    ctx,
    skipped,
    json: Boolean(args.values.json),
    ms: performance.now() - started,
  });
}

/** A file of a walked folder that was left out, and why. */
interface Skipped {
  source: string;
  reason: string;
}

/**
 * Turns arguments into files and URLs; a folder becomes its files, stored under /ingest/<folder>/.
 * A folder's files of unknown formats are left out and listed; a file named by itself is not.
 */
async function expand(
  sources: string[],
  o: { cwd: string; glob?: string; exclude?: string[]; explicitFormat: boolean },
): Promise<{ items: Item[]; skipped: Skipped[] }> {
  const items: Item[] = [];
  const skipped: Skipped[] = [];
  for (const source of sources) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
      items.push({ source, kind: "url" });
      continue;
    }
    const abs = source.startsWith("/") ? source : `${o.cwd}/${source}`;
    const info = await Deno.stat(abs).catch(() => null);
    if (!info?.isDirectory) {
      items.push({ source, kind: "file" });
      continue;
    }
    const name = abs.replace(/\/+$/, "").split("/").pop() || "root";
    for (const f of await walkFiles(abs, { glob: o.glob, exclude: o.exclude })) {
      // Without --as, a folder's files of unknown formats are skipped rather than failed.
      if (!o.explicitFormat && !knownFormat(f.rel)) {
        skipped.push({ source: f.path, reason: "unknown format (give --as to read it anyway)" });
        continue;
      }
      items.push({ source: f.path, kind: "file", path: `/ingest/${name}/${f.rel}` });
    }
  }
  if (items.length === 0) {
    throw new EngramError(
      "invalid_argument",
      `nothing to ingest: the folders hold no readable files${
        skipped.length ? ` (${skippedWords(skipped)})` : ""
      }`,
    );
  }
  return { items, skipped };
}

/** "skipped 2 of unknown format: blob.bin, x.exe" — up to five names. */
function skippedWords(skipped: Skipped[]): string {
  const names = skipped.slice(0, 5).map((s) => s.source.split("/").pop());
  const more = skipped.length > 5 ? `, and ${skipped.length - 5} more` : "";
  return `skipped ${skipped.length} of unknown format: ${names.join(", ")}${more}; --as reads them`;
}

function knownFormat(name: string): boolean {
  try {
    formatOf(name);
    return true;
  } catch {
    return false;
  }
}

function report(
  results: { source: string; result?: IngestResponse; error?: string }[],
  o: { ctx: CommandContext; skipped: Skipped[]; json: boolean; ms: number },
): number {
  const failed = results.filter((r) => r.error);
  const ingested = results.filter((r) => r.result && !r.result.reused).length;
  const unchanged = results.filter((r) => r.result?.reused).length;
  const summary = {
    total: results.length,
    ingested,
    unchanged,
    failed: failed.map((f) => ({ source: f.source, error: f.error! })),
    skipped: o.skipped,
    duration_ms: Math.round(o.ms),
    documents: results.filter((r) => r.result).map((r) => ({
      source: r.source,
      path: r.result!.path,
      document_id: r.result!.document_id,
      chunk_count: r.result!.chunk_count,
      reused: r.result!.reused,
      ...(r.result!.warnings ? { warnings: r.result!.warnings } : {}),
    })),
  };
  // Ingested all the same: each said on stderr, and the exit code does not change.
  for (const r of results) {
    for (const w of r.result?.warnings ?? []) {
      o.ctx.out.warn(`warning: ${r.source}:${w.line}: ${w.message}`);
    }
  }
  if (o.json) o.ctx.out.json(summary);
  else {
    for (const f of failed) o.ctx.out.warn(`failed: ${f.source}: ${f.error}`);
    o.ctx.out.line(
      `ingested ${ingested}, unchanged ${unchanged}, failed ${failed.length} of ${results.length} in ${
        (o.ms / 1000).toFixed(1)
      } s${o.skipped.length ? `; ${skippedWords(o.skipped)}` : ""}`,
    );
  }
  return failed.length > 0 ? 1 : 0;
}
