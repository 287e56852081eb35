/**
 * @module The composition root of every command: opening the storage, and handing each consumer
 * the narrow ports it uses (the memory service, sessions, jobs, locks, audit, tokens).
 */
import { type ConfigFlags, loadConfig, type ResolvedConfig } from "../config/load.ts";
import type { EnvSnapshot } from "../config/env.ts";
import type { McpServerConfig } from "../config/mcp_servers.ts";
import { applyModePermissions, type Mode } from "./permissions.ts";
import { stderrLogger } from "./logger.ts";
import { type Logger, silentLogger } from "../core/logger.ts";
import type { EXTRACT_JOB, ExtractJobPayload } from "../core/sessions/extraction.ts";
import { ProviderSet } from "../providers/stack.ts";
import type { ServerDeps } from "../mcp/server/factory.ts";
import { selectTools } from "../mcp/server/tool_selection.ts";
import { VERSION } from "../version.ts";
import type { ConsolidateSettings } from "../core/sessions/consolidate.ts";
import type { IngestContext } from "../ingest/context.ts";
import type { INGEST_FILE_JOB, IngestFileJobPayload } from "../ingest/ingest_file.ts";
import { JobRunner } from "../core/job_runner.ts";
import { ensureDefaultBrain } from "../core/brains.ts";
import { TokenService } from "../core/bearer_tokens.ts";
import { MemoryService } from "../core/memory_service.ts";
import type { AuthorizationPorts } from "../core/oauth/authorization_server.ts";
import type { ApprovalStore } from "../core/ports/approval_store.ts";
import type { AuditReader, AuditSink } from "../core/ports/audit_log.ts";
import type { JobQueue } from "../core/ports/job_queue.ts";
import type { LockStore } from "../core/ports/lock_store.ts";
import type { SessionStore } from "../core/ports/session_store.ts";
import type { StorageHealth } from "../core/ports/storage.ts";
import type { TraceReader, TraceSink } from "../core/ports/trace_log.ts";
import type { UpstreamCredentialStore } from "../core/ports/upstream_credentials.ts";
import type { UpstreamStore } from "../core/ports/upstream_store.ts";
import type { CallerContext } from "../core/types.ts";
import { openStorage } from "./open_storage.ts";

/** The open storage's ports, the services on them, and the configured language-model providers. */
export interface Runtime {
  service: MemoryService;
  sessions: SessionStore;
  jobQueue: JobQueue;
  locks: LockStore;
  audit: AuditSink & AuditReader;
  /** Upstream calls, beside the audit log. */
  traces: TraceSink & TraceReader;
  tokens: TokenService;
  /** What engram serve's OAuth authorization server and `engram tokens pair|clients` work on. */
  authorization: AuthorizationPorts;
  /** The operator's state about upstream MCP servers. */
  upstreams: UpstreamStore;
  /** What engram keeps to reach upstream servers that require OAuth (sealed tokens). */
  upstreamCredentials: UpstreamCredentialStore;
  /** Approvals of upstream capabilities, and what was last seen live. */
  approvals: ApprovalStore;
  health: StorageHealth;
  providers: ProviderSet;
  /** Closes the storage; resolves once what it had pending (audit rows) is written. */
  close(): Promise<void>;
}

/** The caller for direct CLI commands: the local operator, all brains. */
export const CLI_CALLER: CallerContext = {
  clientId: "cli",
  transport: "cli",
  tier: "admin",
  brains: "*",
};

/** Opens and migrates the configured storage (creating the data directory for SQLite), and creates `default` on first run. */
export async function openRuntime(
  config: ResolvedConfig,
  options: { logger?: Logger } = {},
): Promise<Runtime> {
  const logger = options.logger ?? silentLogger;
  const storage = await openStorage(config, { logger });
  try {
    await ensureDefaultBrain(storage.brains);
    const providers = new ProviderSet(config.providers, { logger });
    const service = new MemoryService(storage, {
      defaultBrain: config.defaultBrain,
      embedder: providers.embedder,
      logger,
      changePollMs: config.changePollMs,
    });
    if (config.defaultBrain !== undefined) await service.brain(CLI_CALLER);
    return {
      service,
      sessions: storage.sessions,
      jobQueue: storage.jobs,
      locks: storage.locks,
      audit: storage.audit,
      traces: storage.traces,
      tokens: new TokenService(storage),
      authorization: {
        oauth: storage.oauth,
        tokens: storage.tokens,
        brains: storage.brains,
        units: storage.units,
      },
      upstreams: storage.upstreams,
      upstreamCredentials: storage.upstreamCredentials,
      approvals: storage.approvals,
      health: storage.health,
      providers,
      close: async () => await storage.close(),
    };
  } catch (err) {
    await storage.close();
    throw err;
  }
}

/** Jobs run as the local engram process, across all brains (each job names its own brain). */
const JOB_CALLER: CallerContext = {
  clientId: "engram-jobs",
  transport: "cli",
  tier: "admin",
  brains: "*",
};

/**
 * The job kinds, typed as their modules' constants (a different value fails `deno task check`):
 * the modules themselves load with the first job of their kind, not with every server.
 */
const INGEST_FILE: typeof INGEST_FILE_JOB = "ingest_file";
const EXTRACT: typeof EXTRACT_JOB = "extract";

/** The background job runner with every job kind engram knows. */
export function createJobRunner(
  runtime: Runtime,
  options: { config: ResolvedConfig; logger: Logger },
): JobRunner {
  return new JobRunner(runtime.jobQueue, {
    logger: options.logger,
    leaseMs: options.config.ingest.job_lease_ms,
    retryDelayMs: options.config.ingest.job_retry_ms,
    // Another process's killed job is taken over within a lease plus this (docs/operations.md).
    pollMs: options.config.changePollMs,
    handlers: {
      [INGEST_FILE]: async (job) => {
        const { runIngestFileJob } = await import("../ingest/ingest_file.ts");
        return {
          ...(await runIngestFileJob(runtime.service, JOB_CALLER, {
            brain_id: job.brain_id,
            payload: job.payload as unknown as IngestFileJobPayload,
          })),
        };
      },
      [EXTRACT]: async (job) => {
        const { runExtraction } = await import("../core/sessions/extraction.ts");
        return {
          ...(await runExtraction(
            {
              service: runtime.service,
              sessions: runtime.sessions,
              model: runtime.providers.background(),
            },
            JOB_CALLER,
            { brain_id: job.brain_id, payload: job.payload as unknown as ExtractJobPayload },
          )),
        };
      },
    },
  });
}

/** What every MCP session of this process shares (all of ServerDeps but the caller). */
export function sessionDeps(
  runtime: Runtime,
  o: {
    config: ResolvedConfig;
    logger: Logger;
    cwd: string;
    jobs: JobRunner;
    upstream?: ServerDeps["upstream"];
    /** The tool selection of every session (`--tools`, else the config's `server.tools`). */
    tools?: readonly string[];
  },
): Omit<ServerDeps, "caller"> {
  return {
    service: runtime.service,
    sessions: runtime.sessions,
    jobQueue: runtime.jobQueue,
    locks: runtime.locks,
    audit: runtime.audit,
    logger: o.logger,
    version: VERSION,
    ingest: ingestContext(o.config, o.cwd),
    providers: runtime.providers,
    jobs: o.jobs,
    consolidate: consolidateSettings(o.config),
    ...(o.upstream ? { upstream: o.upstream } : {}),
    ...(o.tools ? { toolSelection: selectTools(o.tools) } : {}),
  };
}

/** Ingestion settings for MCP sessions. */
function ingestContext(config: ResolvedConfig, cwd: string): IngestContext {
  return {
    roots: config.mcp.allowed_file_roots,
    cwd,
    queueBytes: config.ingest.queue_bytes,
    allowedUrlHosts: config.ingest.allowed_url_hosts,
    urlTimeoutMs: config.ingest.url_timeout_ms,
  };
}

/** What a command reads before its permissions drop, and the upstream servers it may start. */
export interface Preloaded<L> {
  value: L;
  /** Servers whose commands must stay runnable (default: those of the config file). */
  servers?: readonly McpServerConfig[];
}

/**
 * The life of a one-shot command: load config, open the database, run `options.load` (whose value
 * `fn` gets), drop the mode's permissions, run `fn`, close the database whatever happens.
 */
export async function withRuntime<T, L = undefined>(
  ctx: { env: EnvSnapshot; cwd: string },
  flags: ConfigFlags,
  fn: (runtime: Runtime, config: ResolvedConfig, loaded: L) => Promise<T>,
  options: {
    mode?: Exclude<Mode, "serve" | "stdio">;
    load?: (runtime: Runtime, config: ResolvedConfig) => Promise<Preloaded<L>>;
  } = {},
): Promise<T> {
  const config = loadConfig(flags, { env: ctx.env, cwd: ctx.cwd });
  const runtime = await openRuntime(config, { logger: stderrLogger(config.logLevel) });
  try {
    const loaded = await options.load?.(runtime, config);
    await applyModePermissions(options.mode ?? "cli", config, { servers: loaded?.servers });
    return await fn(runtime, config, loaded?.value as L);
  } finally {
    await runtime.close();
  }
}

/** Consolidation settings from config. */
export function consolidateSettings(config: ResolvedConfig): ConsolidateSettings {
  return {
    promoteAfterSessions: config.consolidate.promote_after_sessions,
    pruneAfterDays: config.consolidate.prune_episodes_after_days,
  };
}
