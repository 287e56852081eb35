/** @module The configuration file's schema (zod) and defaults. */
import { z } from "zod";
import { HOST_PATTERN_FORMS, parseHostPattern } from "../core/host_pattern.ts";
import { TOOL_NAME_OR_GLOB } from "../core/tool_names.ts";
import { McpSectionSchema } from "./mcp_servers.ts";
import { oauthPublicUrlProblem, ServerOAuthSchema, TrustedProxiesSchema } from "./server_oauth.ts";
import { decimalNumber, wholeNumber } from "./number_setting.ts";
import { STORAGE_BACKEND_DEFAULTS, StorageBackendFields } from "./storage_backend.ts";

/** Log levels, lowest first (RFC 5424 names, as MCP logging uses). */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

const providerCommon = {
  name: z.string().min(1).max(64).optional().describe("Shown in errors and logs; else the type"),
  timeout_ms: wholeNumber(100, 600_000).default(60_000),
  max_retries: wholeNumber(0, 10).default(2),
  max_tokens: wholeNumber(16, 200_000).default(1024),
};

/** One entry of `providers`, tried in the listed order (docs/configuration.md#language-model-providers). */
const ProviderSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("openai"),
    ...providerCommon,
    base_url: z.url().describe("e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1"),
    model: z.string().min(1),
    api_key: z.string().min(1).optional(),
    embedding_model: z.string().min(1).optional().describe("Enables vector search"),
  }),
  z.strictObject({
    type: z.literal("anthropic"),
    ...providerCommon,
    base_url: z.url().default("https://api.anthropic.com"),
    model: z.string().min(1),
    api_key: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal("sampling"),
    name: providerCommon.name,
    max_tokens: providerCommon.max_tokens,
  }),
  z.strictObject({ type: z.literal("extractive"), name: providerCommon.name }),
]);

/** A validated provider entry. */
export type ProviderConfig = z.infer<typeof ProviderSchema>;

/** The YAML config. Unknown keys are errors so a typo never silently does nothing. */
export const ConfigSchema = z.strictObject({
  data_dir: z.string().min(1).optional().describe("Directory holding engram.db"),
  default_brain: z.string().min(1).optional().describe("Brain used when a call names none"),
  log_level: z.enum(LOG_LEVELS).default("info"),
  storage: z.strictObject({
    ...StorageBackendFields,
    synchronous: z.enum(["normal", "full"]).default("normal"),
    search_cache_mb: decimalNumber(0, 4096).default(16)
      .describe("Memory for searches kept until the index changes; 0 turns the cache off"),
    change_poll_ms: wholeNumber(50, 3_600_000).default(1000)
      .describe("How often resource subscriptions look for other processes' changes"),
  }).default({
    ...STORAGE_BACKEND_DEFAULTS,
    synchronous: "normal",
    search_cache_mb: 16,
    change_poll_ms: 1000,
  }),
  stdio: z.strictObject({
    tier: z.enum(["read", "write", "admin"]).default("read"),
  }).default({ tier: "read" }),
  server: z.strictObject({
    host: z.string().min(1).default("127.0.0.1"),
    port: wholeNumber(0, 65535).default(8787),
    allowed_origins: z.array(z.string().min(1)).default([])
      .describe("Origins browsers may call from; loopback origins are allowed on a loopback bind"),
    allowed_hosts: z.array(z.string().min(1)).default([])
      .describe("Host header values accepted besides the listen address (e.g. a proxy's name)"),
    accept_older_protocols: z.boolean().default(false),
    tools: z.array(
      z.string().regex(TOOL_NAME_OR_GLOB, {
        error: "must be a tool name or a glob such as mcp_files_*",
      }),
    ).optional()
      .describe("The tools every session lists and may call (names or globs); default all"),
    public_url: z.url().optional().describe("Base URL clients use, when behind a proxy"),
    max_body_bytes: wholeNumber(1024).default(4 * 1024 * 1024),
    requests_per_minute: wholeNumber(1).default(600),
    max_sessions_per_client: wholeNumber(1).default(32),
    session_idle_ms: wholeNumber(1000).default(30 * 60 * 1000),
    sse_buffer_events: wholeNumber(1).default(256),
    sse_keepalive_ms: wholeNumber(1000).default(15_000),
    sse_retry_ms: wholeNumber(0).default(3_000),
    shutdown_grace_ms: wholeNumber(0).default(10_000),
    oauth: ServerOAuthSchema,
    trusted_proxies: TrustedProxiesSchema,
  }).superRefine((server, ctx) => {
    const problem = server.oauth.enabled ? oauthPublicUrlProblem(server.public_url) : null;
    if (problem) ctx.addIssue({ code: "custom", path: ["oauth", "enabled"], message: problem });
  }).prefault({}),
  mcp: McpSectionSchema,
  ingest: z.strictObject({
    allowed_url_hosts: z.array(
      z.string().min(1).refine((entry) => parseHostPattern(entry) !== null, {
        error: (issue) => `"${issue.input}" is not ${HOST_PATTERN_FORMS}`,
      }),
    ).default([]).describe("Internal hosts URL ingestion may fetch: host, host:port, [v6]:port"),
    queue_bytes: wholeNumber(0).default(2 * 1024 * 1024),
    url_timeout_ms: wholeNumber(100, 600_000).default(15_000),
    job_lease_ms: wholeNumber(100).default(30_000),
    job_retry_ms: wholeNumber(0).default(2_000),
  }).default({
    job_retry_ms: 2_000,
    allowed_url_hosts: [],
    queue_bytes: 2 * 1024 * 1024,
    url_timeout_ms: 15_000,
    job_lease_ms: 30_000,
  }),
  providers: z.array(ProviderSchema).default([]),
  consolidate: z.strictObject({
    promote_after_sessions: wholeNumber(2).default(2),
    prune_episodes_after_days: wholeNumber(1).default(90),
  }).default({ promote_after_sessions: 2, prune_episodes_after_days: 90 }),
});

/** The validated file config. */
export type FileConfig = z.infer<typeof ConfigSchema>;
