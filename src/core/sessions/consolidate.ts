/**
 * @module One consolidation pass over a brain (memory_consolidate, `engram consolidate`):
 * 1. compile: `/memory/<scope>/facts.md` lists a scope's current facts, `/memory/agent/episodes.md`
 *    the episodes (source `compile`; rewritten only when they change);
 * 2. promote: a fact seen in at least `promoteAfterSessions` sessions gets a stable note under
 *    `/memory/global/stable/`; a stable note whose fact was superseded since is retired;
 * 3. prune: episodes not updated for `pruneAfterDays` are soft-deleted (their line stays in the
 *    compiled episodes list, and their versions stay in the database).
 * A lock in the database keeps two passes over one brain from overlapping, across processes.
 */
import { EngramError } from "../errors.ts";
import { factsPrefix, isActiveFact } from "./facts.ts";
import { newId } from "../ids.ts";
import { slugify } from "../markdown/naming.ts";
import type { MemoryService } from "../memory_service.ts";
import type { LockStore } from "../ports/lock_store.ts";
import { EPISODES_PREFIX } from "./reflect.ts";
import type { Brain, CallerContext, DocumentRecord } from "../types.ts";

/** Where promoted facts become stable notes. */
export const STABLE_PREFIX = "/memory/global/stable/";
/** The compiled list of episodes. */
export const EPISODES_SUMMARY = "/memory/agent/episodes.md";
/** A crashed pass frees its lock after this long. */
const LOCK_TTL_MS = 10 * 60_000;
const SCOPES = ["global", "project", "agent"] as const;
const DAY_MS = 86_400_000;

/** Consolidation settings (config `consolidate`). */
export interface ConsolidateSettings {
  promoteAfterSessions: number;
  pruneAfterDays: number;
}

/** A document the pass touched, and what it did or would do. */
export interface ChangedDocument {
  path: string;
  action: "created" | "updated" | "unchanged" | "promoted" | "retired" | "pruned";
  document_id?: string;
  reason?: string;
}

/** The consolidation report. */
export interface ConsolidationReport {
  brain_id: string;
  brain_slug: string;
  dry_run: boolean;
  summaries: ChangedDocument[];
  promoted: ChangedDocument[];
  retired: ChangedDocument[];
  pruned: ChangedDocument[];
  took_ms: number;
}

/**
 * Runs one pass; `busy` when another pass over the brain is running. A real pass writes as one
 * unit of work: its summaries, promotions, retirements and prunings are kept together or not at
 * all. The lock is taken outside it, so other processes see it at once.
 */
export async function consolidate(
  deps: { service: MemoryService; locks: LockStore },
  caller: CallerContext,
  o: { brain?: string; dryRun: boolean; settings: ConsolidateSettings; now?: Date },
): Promise<ConsolidationReport> {
  const { service } = deps;
  const started = performance.now();
  const brain = await service.brain(caller, o.brain);
  const lock = `consolidate:${brain.id}`;
  const holder = `${caller.clientId}:${newId("job").slice(4)}`;
  const held = await deps.locks.acquireLock(lock, holder, LOCK_TTL_MS);
  if (held) {
    throw new EngramError(
      "busy",
      `consolidation of brain "${brain.slug}" is already running (${held.holder}, since ${held.acquired_at}); try again when it has finished`,
    );
  }
  try {
    const pass = new Pass(service, { caller, brain, dryRun: o.dryRun });
    const now = o.now ?? new Date();
    const run = async () => {
      const facts: DocumentRecord[] = [];
      for (const scope of SCOPES) {
        const active = (await service.documentsUnder(brain, factsPrefix(scope)))
          .filter(isActiveFact);
        facts.push(...active);
        if (active.length) await pass.compileFacts(scope, active);
      }
      await pass.promote(facts, o.settings.promoteAfterSessions);
      await pass.compileAndPruneEpisodes(now.getTime() - o.settings.pruneAfterDays * DAY_MS);
    };
    // A dry run writes nothing, so it need not hold the write lock.
    if (o.dryRun) await run();
    else await service.atomically(run);
    return {
      brain_id: brain.id,
      brain_slug: brain.slug,
      dry_run: o.dryRun,
      ...pass.report,
      took_ms: Math.round(performance.now() - started),
    };
  } finally {
    await deps.locks.releaseLock(lock, holder);
  }
}

class Pass {
  report = {
    summaries: [] as ChangedDocument[],
    promoted: [] as ChangedDocument[],
    retired: [] as ChangedDocument[],
    pruned: [] as ChangedDocument[],
  };
  #service: MemoryService;
  #o: { caller: CallerContext; brain: Brain; dryRun: boolean };

  constructor(service: MemoryService, o: { caller: CallerContext; brain: Brain; dryRun: boolean }) {
    this.#service = service;
    this.#o = o;
  }

  async compileFacts(scope: string, facts: DocumentRecord[]): Promise<void> {
    const bySubject = new Map<string, DocumentRecord[]>();
    for (const f of facts) {
      const subject = String(f.metadata.subject ?? "other");
      bySubject.set(subject, [...(bySubject.get(subject) ?? []), f]);
    }
    const lines = [`# Facts (${scope})`, "", `Compiled from ${facts.length} current facts.`];
    for (const [subject, list] of [...bySubject].sort((a, b) => a[0].localeCompare(b[0]))) {
      lines.push("", `## ${subject}`, "");
      for (const f of list) lines.push(`- [${f.title}](${f.path})`);
    }
    await this.#write(`/memory/${scope}/facts.md`, `Facts (${scope})`, lines.join("\n") + "\n");
  }

  async promote(facts: DocumentRecord[], minSessions: number): Promise<void> {
    const brainId = this.#o.brain.id;
    for (const f of facts) {
      if (Number(f.metadata.session_count ?? 1) < minSessions || f.metadata.promoted_to) continue;
      const path = `${STABLE_PREFIX}${slugify(f.title, 72) || "note"}.md`;
      const content =
        `# ${f.title}\n\n${f.title}\n\nPromoted from [[${f.title}]] (${f.path}) after it came up in ${f.metadata.session_count} sessions.\n`;
      const entry: ChangedDocument = { path, action: "promoted", document_id: f.id };
      if (!this.#o.dryRun) {
        const note = await this.#service.remember(this.#o.caller, {
          brain: brainId,
          path,
          title: f.title,
          content,
          tags: ["stable"],
          metadata: { kind: "stable", promoted_from: f.id },
        }, { source: "compile" });
        await this.#service.update(this.#o.caller, {
          id: f.id,
          brain: brainId,
          metadata: { promoted_to: note.path },
        });
        entry.document_id = note.id;
      }
      this.report.promoted.push(entry);
    }
    for (const note of await this.#service.documentsUnder(this.#o.brain, STABLE_PREFIX)) {
      const from = note.metadata.promoted_from;
      if (typeof from !== "string") continue;
      const fact = await this.#service.findLive(this.#o.brain, { id: from });
      if (fact && fact.metadata.status !== "superseded") continue;
      if (!this.#o.dryRun) {
        await this.#service.forget(this.#o.caller, { id: note.id, brain: brainId });
      }
      this.report.retired.push({
        path: note.path,
        action: "retired",
        document_id: note.id,
        reason: "its fact was superseded or forgotten",
      });
    }
  }

  async compileAndPruneEpisodes(cutoff: number): Promise<void> {
    const brainId = this.#o.brain.id;
    const episodes = (await this.#service.documentsUnder(this.#o.brain, EPISODES_PREFIX))
      .filter((d) => d.metadata.kind === "episode");
    const previous = await this.#service.readLive(this.#o.brain, { path: EPISODES_SUMMARY });
    const live = new Set(episodes.map((e) => e.path));
    // Lines of episodes pruned by earlier passes stay: the list is the long-term record.
    const kept = (previous ? previous.content.split("\n") : [])
      .filter((l) => l.startsWith("- ") && !live.has(/\(([^)]+\.md)\)\s*$/.exec(l)?.[1] ?? ""));
    if (episodes.length === 0 && kept.length === 0) return;
    const lines = [
      ...episodes.map((e) =>
        `- ${e.updated_at.slice(0, 10)} · ${
          e.metadata.outcome ?? "unknown"
        } · [${e.title}](${e.path})`
      ),
      ...kept,
    ].sort().reverse();
    await this.#write(
      EPISODES_SUMMARY,
      "Episodes",
      `# Episodes\n\nOne line per recorded session, newest first.\n\n${lines.join("\n")}\n`,
    );
    for (const e of episodes) {
      if (Date.parse(e.updated_at) >= cutoff) continue;
      if (!this.#o.dryRun) await this.#service.forget(this.#o.caller, { id: e.id, brain: brainId });
      this.report.pruned.push({
        path: e.path,
        action: "pruned",
        document_id: e.id,
        reason: `episode not updated since ${e.updated_at.slice(0, 10)}`,
      });
    }
  }

  async #write(path: string, title: string, content: string): Promise<void> {
    const brainId = this.#o.brain.id;
    const existing = await this.#service.readLive(this.#o.brain, { path });
    const live = existing !== null;
    if (existing && existing.content === content) {
      this.report.summaries.push({ path, action: "unchanged", document_id: existing.id });
      return;
    }
    const entry: ChangedDocument = { path, action: live ? "updated" : "created" };
    if (!this.#o.dryRun) {
      const doc = await this.#service.remember(this.#o.caller, {
        brain: brainId,
        path,
        title,
        content,
        metadata: { kind: "summary" },
      }, { source: "compile" });
      entry.document_id = doc.id;
    } else {
      // A forgotten summary at the path is the one a real pass would bring back.
      const owner = existing ?? await this.#service.pathOwner(this.#o.brain, path);
      if (owner) entry.document_id = owner.id;
    }
    this.report.summaries.push(entry);
  }
}
