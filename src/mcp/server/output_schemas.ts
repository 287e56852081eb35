/**
 * @module Output schemas for the wire records (docs/tools.md#result-records). Loose, so a client keeps keys a newer
 * engram adds; yet every key a tool returns is listed here (tests/mcp/server/tool_results_test.ts holds
 * each result to a closed copy of its listed schema), so the TS records and these cannot drift.
 *
 * Built when the tools are listed and dropped afterwards: they are only ever turned into the
 * listing's JSON Schemas, once per process (tool_listing.ts), so an idle server holds none of their
 * ~350 schema nodes (0.4 MiB).
 */
import { z } from "zod";

/** Builds the output schemas, fresh on every call. */
export function outputSchemas() {
  /** A metadata value. */
  const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

  /** Where a document came from: set by engram, never by a tool call. */
  const documentSource = z.enum(["ingest", "extract", "compile", "reflect"]);

  /** A compiled document's provenance; null on every other document. */
  const ProvenanceSchema = z.looseObject({
    /** The upstream server the text was read from. */
    server: z.string(),
    uri: z.string(),
    mime_type: z.string().nullable(),
    fetched_at: z.string(),
    /** SHA-256 of the bytes fetched. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** The server's identity pin when it was read. */
    approval: z.string().nullable(),
    /** The version that compile wrote. */
    version: z.number().int().min(1),
    /** The content returned is not the text that compile stored. */
    edited: z.boolean(),
  }).nullable();

  /** DocumentRecord. */
  const DocumentRecordSchema = z.looseObject({
    id: z.string(),
    brain_id: z.string(),
    title: z.string().min(1).max(512),
    path: z.string().min(1).max(1024),
    source: documentSource,
    content_type: z.string(),
    byte_size: z.number().int().min(0),
    checksum_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    metadata: z.record(z.string(), metadataValue),
    commit_sha: z.string().regex(/^[0-9a-f]{7,64}$/),
    version: z.number().int().min(1),
    created_at: z.string(),
    updated_at: z.string(),
    deleted_at: z.string().nullable(),
  });

  /** What reading a note could not take as written: its line (1-based) and what was kept. */
  const WarningsSchema = z.array(
    z.looseObject({ line: z.number().int().min(1), message: z.string() }),
  );

  /** memory_remember and memory_update output: the DocumentRecord, with warnings when there are any. */
  const WrittenRecordSchema = DocumentRecordSchema.extend({
    warnings: WarningsSchema.optional(),
  });

  /** A DocumentRecord with its content. */
  const DocumentWithContentSchema = DocumentRecordSchema.extend({ content: z.string() });

  /** memory_get output: the document with its content and provenance. */
  const GetOutputSchema = DocumentWithContentSchema.extend({ provenance: ProvenanceSchema });

  /** A brain. */
  const BrainSchema = z.looseObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    visibility: z.enum(["private", "tenant", "public"]),
    created_at: z.string(),
    updated_at: z.string(),
  });

  /** A search hit. */
  const SearchHitSchema = z.looseObject({
    score: z.number(),
    path: z.string(),
    content: z.string(),
    document_id: z.string(),
    chunk_id: z.string(),
    title: z.string(),
    brain_id: z.string(),
    metadata: z.record(z.string(), metadataValue),
    highlights: z.array(z.string()),
    /** The headings the chunk sits under, outermost first. */
    heading_path: z.array(z.string()),
    /** When the hit's document last changed. */
    updated_at: z.string(),
    component_scores: z.record(z.string(), z.number()).optional(),
    more_chunks: z.number().int().min(0).optional(),
    source: documentSource,
    provenance: ProvenanceSchema,
  });

  /** memory_search output. */
  const SearchOutputSchema = z.looseObject({
    query: z.string(),
    brain_id: z.string(),
    hits: z.array(SearchHitSchema),
    took_ms: z.number().int().min(0),
  });

  /** memory_pack output. */
  const PackOutputSchema = z.looseObject({
    pack: z.string(),
    sources: z.array(z.looseObject({
      document_id: z.string(),
      path: z.string(),
      title: z.string(),
      chunk_ids: z.array(z.string()),
    })),
    tokens: z.number().int().min(0),
    truncated: z.boolean(),
    budget_tokens: z.number().int().min(1),
    tokenizer: z.string(),
    brain_id: z.string(),
    basis: z.enum(["query", "documents", "recent"]),
    note: z.string().optional(),
  });

  const loopKind = z.enum(["task", "question", "commitment"]);

  /** memory_open_loops output. */
  const OpenLoopsOutputSchema = z.looseObject({
    items: z.array(z.looseObject({
      kind: loopKind,
      text: z.string(),
      owner: z.string().optional(),
      due: z.string().optional(),
      path: z.string(),
      document_id: z.string(),
      line: z.number().int().min(1),
      first_seen: z.string(),
      status: z.enum(["open", "closed"]),
      closed_by: z.enum(["checked", "answered", "removed"]).optional(),
      closed_at: z.string().optional(),
    })),
    open_counts: z.looseObject({
      task: z.number().int().min(0),
      question: z.number().int().min(0),
      commitment: z.number().int().min(0),
    }),
    truncated: z.boolean(),
    documents_scanned: z.number().int().min(0),
    brain_id: z.string(),
    note: z.string().optional(),
  });

  /** memory_decisions output. */
  const DecisionsOutputSchema = z.looseObject({
    decisions: z.array(z.looseObject({
      statement: z.string(),
      rationale: z.string().optional(),
      who: z.string().optional(),
      when: z.string().optional(),
      citation: z.looseObject({
        document_id: z.string(),
        chunk_id: z.string(),
        path: z.string(),
        quote: z.string(),
      }),
    })),
    brain_id: z.string(),
    provider: z.string(),
    note: z.string().optional(),
  });

  const documentPointer = z.looseObject({ document_id: z.string(), path: z.string() });

  /** memory_meeting_extract output. */
  const MeetingOutputSchema = z.looseObject({
    title: z.string(),
    date: z.string().nullable(),
    attendees: z.array(z.string()),
    decisions: z.array(z.string()),
    action_items: z.array(z.looseObject({
      task: z.string(),
      owner: z.string().optional(),
      due: z.string().optional(),
    })),
    open_questions: z.array(z.string()),
    provider: z.string(),
    brain_id: z.string(),
    source: documentPointer.optional(),
    stored: documentPointer.optional(),
    not_stored: z.string().optional(),
  });

  /** memory_reindex output. */
  const ReindexOutputSchema = z.looseObject({
    brain_id: z.string(),
    documents: z.number().int().min(0),
    chunks: z.number().int().min(0),
    /** Chunks given a vector in this pass (0 without an embedder). */
    embedded: z.number().int().min(0),
    took_ms: z.number().int().min(0),
  });

  /** memory_recall output: `chunks` with a session, else memory_search's `hits`. */
  const RecallOutputSchema = z.looseObject({
    chunks: z.array(SearchHitSchema).optional(),
    hits: z.array(SearchHitSchema).optional(),
    query: z.string(),
    brain_id: z.string(),
    session_id: z.string().optional(),
    session_terms: z.array(z.string()).optional(),
    took_ms: z.number().int().min(0),
  });

  /** memory_ask output. */
  const AskOutputSchema = z.looseObject({
    answer: z.string(),
    citations: z.array(z.looseObject({
      type: z.literal("citation"),
      chunk_id: z.string(),
      document_id: z.string(),
      answer_start: z.number().int().min(0),
      answer_end: z.number().int().min(0),
      quote: z.string(),
    })),
    retrieved: z.array(z.looseObject({
      chunk_id: z.string(),
      document_id: z.string(),
      score: z.number(),
      preview: z.string().max(512),
    })),
    brain_id: z.string(),
    provider: z.string(),
    grounded: z.boolean().optional(),
  });

  /** SessionMessageRecord. */
  const SessionMessageSchema = z.looseObject({
    id: z.string(),
    session_id: z.string(),
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().max(1_000_000),
    name: z.string().min(1).max(128).optional(),
    created_at: z.string(),
  });

  /** memory_extract output: `messages` in session mode, `document` (the transcript) otherwise. */
  const ExtractOutputSchema = z.looseObject({
    mode: z.enum(["session", "transcript"]),
    messages: z.array(SessionMessageSchema).optional(),
    document: DocumentRecordSchema.optional(),
    brain_id: z.string(),
    session_id: z.string(),
    job_id: z.string(),
  });

  /** memory_reflect output. */
  const ReflectOutputSchema = z.looseObject({
    reflection_status: z.enum(["completed", "no_result"]),
    reflection: z.looseObject({
      outcome: z.enum(["success", "partial", "failure", "unknown"]),
      should_record_episode: z.boolean(),
      path: z.string().nullable(),
      retry_feedback: z.string().optional(),
      summary: z.string(),
      lessons: z.array(z.string()),
      provider: z.string(),
    }).optional(),
    reflection_attempted: z.boolean(),
    ended_at: z.string().optional(),
    session_id: z.string(),
    brain_id: z.string(),
    episode_id: z.string().optional(),
    extraction_job_id: z.string().optional(),
  });

  const changedDocument = z.looseObject({
    path: z.string(),
    action: z.enum(["created", "updated", "unchanged", "promoted", "retired", "pruned"]),
    document_id: z.string().optional(),
    reason: z.string().optional(),
  });

  /** memory_consolidate output: the consolidation report. */
  const ConsolidateOutputSchema = z.looseObject({
    result: z.looseObject({
      brain_id: z.string(),
      brain_slug: z.string(),
      dry_run: z.boolean(),
      summaries: z.array(changedDocument),
      promoted: z.array(changedDocument),
      retired: z.array(changedDocument),
      pruned: z.array(changedDocument),
      took_ms: z.number().int().min(0),
    }),
  });

  return {
    DocumentRecordSchema,
    WarningsSchema,
    WrittenRecordSchema,
    DocumentWithContentSchema,
    GetOutputSchema,
    BrainSchema,
    SearchHitSchema,
    SearchOutputSchema,
    PackOutputSchema,
    OpenLoopsOutputSchema,
    DecisionsOutputSchema,
    MeetingOutputSchema,
    ReindexOutputSchema,
    RecallOutputSchema,
    AskOutputSchema,
    SessionMessageSchema,
    ExtractOutputSchema,
    ReflectOutputSchema,
    ConsolidateOutputSchema,
  };
}

/** The output schemas, as {@link outputSchemas} builds them. */
export type OutputSchemas = ReturnType<typeof outputSchemas>;
