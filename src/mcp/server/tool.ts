/** @module The shape of an engram tool and helpers to define one. */
import type { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import type { MemoryService } from "../../core/memory_service.ts";
import type { CallerContext, Tier } from "../../core/types.ts";
import type { IngestContext } from "../../ingest/context.ts";
import type { MemoryModel } from "../../core/ports/language_model.ts";
import type { ConsolidateSettings } from "../../core/sessions/consolidate.ts";
import type { JobRunner } from "../../core/job_runner.ts";
import type { AuditSink } from "../../core/ports/audit_log.ts";
import type { JobQueue } from "../../core/ports/job_queue.ts";
import type { LockStore } from "../../core/ports/lock_store.ts";
import type { SessionStore } from "../../core/ports/session_store.ts";
import type { OutputSchemas } from "./output_schemas.ts";

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  service: MemoryService;
  /** Conversation sessions (memory_extract, memory_recall, memory_reflect). */
  sessions: SessionStore;
  /** The durable job queue (extraction jobs, memory_job where no runner works here). */
  jobQueue: JobQueue;
  /** Cross-process locks (memory_consolidate). */
  locks: LockStore;
  audit: AuditSink;
  caller: CallerContext;
  /** This session's log: stderr, and the client once it set a level (logging/setLevel). */
  logger: Logger;
  /** The process's own log, never forwarded to the client: where internal error detail goes. */
  serverLogger: Logger;
  signal: AbortSignal;
  /** Ingestion settings; absent where ingestion is not offered. */
  ingest?: IngestContext;
  /** The provider stack of this session (HTTP models, the client's sampling, extractive). */
  model: MemoryModel;
  /** This process's background jobs (queued ingestion, extraction); absent where jobs do not run. */
  jobs?: JobRunner;
  consolidate: ConsolidateSettings;
  /**
   * Present when the call carried `_meta.progressToken`: sends one `notifications/progress`
   * (progress 0, 1, 2, … with `message`). Without a token nothing is ever sent.
   */
  progress?: (message: string) => Promise<void>;
}

/** MCP tool annotations (hints for clients). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One tool: schemas, tier, handler and text summary. */
export interface ToolDef<
  I extends z.ZodType = z.ZodType,
  O extends object = Record<string, unknown>,
  S extends z.ZodType = z.ZodType,
> {
  name: string;
  title: string;
  tier: Tier;
  description: string;
  input: I;
  /**
   * The schema of `structuredContent`, listed as the tool's `outputSchema`: built from the shared
   * record schemas when the tools are listed, and not kept (output_schemas.ts says why).
   */
  output: (schemas: OutputSchemas) => S;
  annotations: ToolAnnotations;
  run(ctx: ToolContext, args: z.output<I>): Promise<O>;
  /** The human-readable `content[0].text`. */
  summary(result: O): string;
  /** The brain a successful result touched, for the audit log. */
  brainOf?(result: O): string | undefined;
}

/**
 * What a value must look like to satisfy schema type `T`, without the `[key: string]: unknown`
 * that loose objects add: a handler's record types are interfaces, which TypeScript never
 * considers assignable to an index signature, while their declared keys are what must match.
 */
export type Conforming<T> = T extends readonly (infer E)[] ? readonly Conforming<E>[]
  : T extends object ? {
      [K in keyof T as string extends K ? (unknown extends T[K] ? never : K) : K]: Conforming<
        T[K]
      >;
    }
  : T;

/**
 * Defines a tool, keeping its input, output schema and handler types linked: a handler whose
 * result does not fit the declared output schema fails `deno task check`, because SDK clients
 * reject a `structuredContent` that does not match the listed `outputSchema`.
 */
export function defineTool<
  I extends z.ZodType,
  S extends z.ZodType,
  O extends Conforming<z.input<S>> & object,
>(def: ToolDef<I, O, S>): ToolDef {
  return def as unknown as ToolDef;
}

/** Annotations for a tool that only reads. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Annotations for a tool that adds or changes data without destroying it. */
export const ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
