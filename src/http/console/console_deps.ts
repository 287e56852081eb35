/**
 * @module What the console needs from the composition root beyond a session's MCP deps: token
 * management, uploads into background jobs, and the upstream servers' review state — each a narrow
 * interface, so `src/http` never imports storage, ingestion or the upstream client
 * (docs/architecture.md#layers). Absent parts make their pages say they are not available here.
 */
import type { AuditReport } from "../../core/audit/audit_report.ts";
import type { TokenRecord } from "../../core/ports/token_store.ts";
import type { UpstreamTrace } from "../../core/ports/trace_log.ts";
import type { CallerContext, IngestResponse, Tier } from "../../core/types.ts";

/** Token management (the tokens page; admin tier). */
export interface ConsoleTokens {
  list(): Promise<TokenRecord[]>;
  create(input: {
    client: string;
    tier: Tier;
    brains?: string[];
    tools?: string[];
  }): Promise<{ token: string; record: TokenRecord }>;
  revoke(id: string): Promise<TokenRecord>;
}

/** One uploaded file to ingest: its name (a relative path for a folder upload) and bytes. */
export interface UploadedFile {
  brain?: string;
  /** The file's name as the browser sent it; its extension decides the format. */
  name: string;
  bytes: Uint8Array;
}

/** Stores an uploaded file and ingests it as a background job (`status: queued`, `job_id`). */
export type ConsoleUpload = (caller: CallerContext, file: UploadedFile) => Promise<IngestResponse>;

/** One upstream server as the console shows it. */
export interface UpstreamServerView {
  name: string;
  transport: string;
  origin: string;
  enabled: boolean;
  /** ready, blocked or disabled. */
  readiness: string;
  /** For a blocked server: the rule that blocks it, why, and the fix. */
  blocked: { rule: string; detail: string; fix: string } | null;
  /** Every launch rule, passing or not. */
  checks: { rule: string; ok: boolean; detail: string }[];
  trust: string;
  /** The last status engram recorded for it (a start, a failure), when any. */
  lastStatus: string | null;
}

/** One tool, prompt or template of a server, with its approval state. */
export interface CapabilityView {
  server: string;
  kind: "tool" | "prompt" | "template";
  name: string;
  /** pending, approved, changed, revoked or missing. */
  state: string;
  description: string;
  /** The tier agents see it at, when exposed. */
  exposedTier: string | null;
  exposedAs: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  /** The approved definition and the one listed now (two-space JSON, sorted keys), when known. */
  approved: string | null;
  live: string | null;
  /** For a pending one: the approved capability it looks like under another name. */
  renamedFrom: string | null;
}

/** What agents see at each tier, and what they do not and why. */
export interface ExposureView {
  tiers: Record<Tier, { tools: string[]; prompts: string[]; templates: string[] }>;
  hidden: { server: string; kind: string; name: string; reason: string; detail: string }[];
}

/** The audit report (the same as `engram mcp report --json`). */
export type AuditReportView = AuditReport;

/** Upstream servers: status, review state, exposure, the report; approving is the operator's. */
export interface ConsoleUpstreams {
  servers(): Promise<UpstreamServerView[]>;
  /**
   * A server's capabilities as last seen live by any engram process (nothing is started to look),
   * compared with the approvals.
   */
  capabilities(server: string): Promise<CapabilityView[]>;
  exposure(): Promise<ExposureView>;
  report(since: string): Promise<AuditReportView>;
  /** The traces of engram's calls to upstream servers since `since`, for the score charts. */
  traces(o: { since: string; server?: string }): AsyncIterable<UpstreamTrace>;
  /** Approves the definition last seen live; `by` is recorded as the approver. */
  approve(
    key: { server: string; kind: CapabilityView["kind"]; name: string },
    o: { expose: Tier | null; by: string },
  ): Promise<void>;
  revoke(
    key: { server: string; kind: CapabilityView["kind"]; name: string },
    o: { by: string },
  ): Promise<void>;
}

/** Everything optional the console is built with. */
export interface ConsoleParts {
  tokens?: ConsoleTokens;
  upload?: ConsoleUpload;
  upstreams?: ConsoleUpstreams;
}
