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
