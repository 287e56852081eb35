/**
 * @module Provenance of compiled documents: the metadata `engram mcp compile-resource` records
 * (which upstream server and URI, when fetched, the digest, the server's pin). An agent may edit a
 * compiled document's content, but not rewrite where it came from — `compile-resource --all` would
 * otherwise read whatever URI an agent wrote there from a trusted server into memory.
 */
import { EngramError } from "./errors.ts";
import type { CallerContext, DocumentRecord, DocumentSource, Metadata } from "./types.ts";

/** The metadata keys only the compiler writes. */
const PROVENANCE_KEYS: readonly string[] = [
  "mcp_server",
  "mcp_uri",
  "mcp_mime_type",
  "fetched_at",
  "sha256",
  "approval",
];

/**
 * Refuses a write by an agent (any caller but the operator's CLI) that sets provenance keys on a
 * compiled document; the compiler itself (`source: compile`) may.
 */
export function guardProvenance(
  caller: CallerContext,
  o: { existing: DocumentRecord | null; metadata?: Metadata; source?: DocumentSource },
): void {
  if (caller.transport === "cli" || o.source === "compile" || !o.metadata || !o.existing) return;
  if (o.existing.source !== "compile") return;
  const touched = Object.keys(o.metadata).filter((k) => PROVENANCE_KEYS.includes(k));
  if (touched.length === 0) return;
  throw new EngramError(
    "forbidden",
    `${o.existing.path} was compiled from an upstream resource and its provenance (${
      touched.join(", ")
    }) is engram's to record; change its content or other metadata, or recompile it with: engram mcp compile-resource`,
  );
}
