/** @module Output schemas for the wire records (TOOLS.md); loose so unknown extra keys survive. */
import { z } from "zod";

/** A metadata value. */
const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** DocumentRecord. */
export const DocumentRecordSchema = z.looseObject({
  id: z.string(),
  brain_id: z.string(),
  title: z.string().min(1).max(512),
  path: z.string().min(1).max(1024),
  source: z.enum(["ingest", "extract", "compile", "reflect"]),
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

/** A DocumentRecord with its content. */
export const DocumentWithContentSchema = DocumentRecordSchema.extend({ content: z.string() });

/** A brain. */
export const BrainSchema = z.looseObject({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  visibility: z.enum(["private", "tenant", "public"]),
  created_at: z.string(),
  updated_at: z.string(),
});

/** A search hit. */
export const SearchHitSchema = z.looseObject({
  score: z.number(),
  path: z.string(),
  content: z.string(),
  document_id: z.string(),
  chunk_id: z.string(),
  title: z.string(),
  brain_id: z.string(),
  metadata: z.record(z.string(), metadataValue),
  highlights: z.array(z.string()),
  component_scores: z.record(z.string(), z.number()).optional(),
  more_chunks: z.number().int().min(0).optional(),
});

/** memory_search output. */
export const SearchOutputSchema = z.looseObject({
  query: z.string(),
  brain_id: z.string(),
  hits: z.array(SearchHitSchema),
  took_ms: z.number().int().min(0),
});

/** memory_pack output. */
export const PackOutputSchema = z.looseObject({
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
export const OpenLoopsOutputSchema = z.looseObject({
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
export const DecisionsOutputSchema = z.looseObject({
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
export const MeetingOutputSchema = z.looseObject({
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
});
