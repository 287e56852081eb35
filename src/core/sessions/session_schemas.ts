/** @module Input schemas of the session and model-backed tools (memory_extract, recall, reflect, ask, consolidate). */
import { z } from "zod";
import { LIMITS } from "../limits.ts";
import { brain, group } from "../schemas.ts";
const sessionId = z.string().min(1).max(LIMITS.sessionIdChars);

/** One conversation message handed to memory_extract. */
const MessageInput = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().min(1, "message content must not be empty").max(
    LIMITS.messageChars,
  ),
  name: z.string().min(1).max(128).optional().describe("Tool name when role is tool"),
});

/** memory_extract input. */
export const ExtractInput = z.object({
  messages: z.array(MessageInput).min(1).max(LIMITS.messages).describe(
    "The conversation, oldest first",
  ),
  brain,
  actor_id: z.string().min(1).max(128).optional().describe("Who is speaking (user or agent id)"),
  session_id: sessionId.optional().describe(
    "Append to this session (created on first use); without it a transcript document is stored",
  ),
  scope: z.enum(["global", "project", "agent"]).default("global").describe(
    "Where extracted facts are kept: /memory/<scope>/facts/",
  ),
});

/** memory_recall input. */
export const RecallInput = z.object({
  query: z.string().min(1).max(LIMITS.queryChars),
  brain,
  scope: z.enum(["global", "project", "agent"]).optional(),
  session_id: sessionId.optional().describe(
    "A session whose recent messages shape the ranking",
  ),
  top_k: z.number().int().min(1).max(LIMITS.recallTopK).default(10),
  group,
});

/** memory_reflect input. */
export const ReflectInput = z.object({
  session_id: sessionId,
  brain,
});

/** memory_ask input. */
export const AskInput = z.object({
  query: z.string().min(1).max(LIMITS.askChars).describe("The question"),
  brain,
  top_k: z.number().int().min(1).max(LIMITS.recallTopK).default(8).describe(
    "How many passages to retrieve",
  ),
  strict: z.boolean().default(false).describe(
    'Answer only from retrieved text: when it does not answer, the answer starts with "Not in memory" and grounded is false',
  ),
});

/** memory_consolidate input. */
export const ConsolidateInput = z.object({
  brain,
  dry_run: z.boolean().default(false).describe("Report what would change without changing it"),
});

/** Parsed memory_extract input. */
export type ExtractArgs = z.infer<typeof ExtractInput>;
/** Parsed memory_recall input. */
export type RecallArgs = z.infer<typeof RecallInput>;
/** Parsed memory_reflect input. */
export type ReflectArgs = z.infer<typeof ReflectInput>;
/** Parsed memory_ask input. */
export type AskArgs = z.infer<typeof AskInput>;
/** Parsed memory_consolidate input. */
export type ConsolidateArgs = z.infer<typeof ConsolidateInput>;
