/**
 * @module `compile-resource` (docs/upstream.md#compiling-resources-into-memory): an upstream resource read and stored in a
 * brain as a document with source `compile` and its provenance — server, URI, when it was fetched,
 * the SHA-256 of the bytes, and the server's identity pin at the time — only from servers trusted
 * for it. Provenance is stored apart from metadata (docs/tools.md#result-records), so what a tool
 * call writes never decides what is read again. A resource whose bytes have not changed makes no
 * new version, and every compiled document of a server can be refreshed at once.
 */
import { EngramError, toEngramError } from "../../../core/errors.ts";
import { sha256Hex } from "../../../core/hash.ts";
import type { MemoryService } from "../../../core/memory_service.ts";
import { normalizePath } from "../../../core/markdown/naming.ts";
import { dropLegacyProvenance } from "../../../core/provenance.ts";
import type { Brain, CallerContext, DocumentRecord, Provenance } from "../../../core/types.ts";
import type { ReadResourceResult } from "../../sdk.ts";
import { serverIdentity } from "../approvals/capability_pins.ts";
import { resourceDocument } from "./resource_content.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";
import type { UpstreamSession } from "../session/upstream_session.ts";

/** Where compiled documents live unless `--path` says otherwise. */
export const COMPILED_ROOT = "/compiled/";

/** Derived paths longer than this are cut and made unique with a hash of the URI. */
const MAX_DERIVED_PATH = 240;
/** Characters kept of one URI segment in a derived path. */
const MAX_SEGMENT = 100;

/** What compiling needs of engram: the memory and who is writing. */
export interface CompileDeps {
  memory: Pick<
    MemoryService,
    "brain" | "findLive" | "rememberCompiled" | "documentsUnder" | "provenanceOf"
  >;
  caller: CallerContext;
  now?: () => Date;
}

/** The upstream side: a session to the server, or anything that reads resources as one does. */
export type ResourceSource = Pick<UpstreamSession, "name" | "server"> & {
  readResource(uri: string): Promise<ReadResourceResult>;
};

/** What one compile did. */
export interface CompileOutcome {
  /** `created`: a new document; `changed`: a new version; `unchanged`: same bytes, nothing written. */
  status: "created" | "changed" | "unchanged";
  server: string;
  uri: string;
  brain: string;
  document: DocumentRecord;
  /** The document's provenance: this fetch's, or the stored one when unchanged. */
  provenance: Provenance;
  sha256: string;
}

/**
 * Why `entry` may not be compiled from, or null when it may: its trust is `verified` or `builtin`,
 * or it sets `compile: true` (and `compile: false` refuses whatever the trust).
 */
export function compileRefusal(entry: CatalogEntry): EngramError | null {
  const c = entry.config;
  const trusted = c.trust === "verified" || c.trust === "builtin";
  if (c.compile === true || (trusted && c.compile !== false)) return null;
  const name = c.name;
  const at = (key: string) => {
    const source = entry.yaml[key] ?? entry.yaml.name;
    return source ? ` (${source.file}:${source.line})` : "";
  };
  if (c.compile === false) {
    return new EngramError(
      "forbidden",
      `upstream server "${name}" sets compile: false${
        at("compile")
      }, so its resources are not compiled into memory; set compile: true there to allow it`,
    );
  }
  const rule =
    `compile-resource reads only from servers with trust verified or builtin, or with compile: true, and "${name}" is ${c.trust}`;
  if (entry.origin !== "yaml") {
    return new EngramError(
      "forbidden",
      `${rule} (${
        entry.origin === "marketplace" ? "added from the marketplace" : "imported"
      }); after reviewing what it serves, mark it verified with: engram mcp set ${name} trust=verified (or define it under mcp.mcp_servers in the config file with trust: verified or compile: true, and that entry overrides ${
        entry.origin === "marketplace" ? "the one added from the marketplace" : "the imported one"
      }; its signature and state no longer apply)`,
    );
  }
  return new EngramError(
    "forbidden",
    `${rule}; after reviewing what it serves, set trust: verified or compile: true in its entry${
      at("trust")
    }`,
  );
}

/**
 * The default path of a compiled resource: `/compiled/<server>/` and the URI's scheme, host and
 * path segments (query too), each made path-safe, ending in `.md`.
 */
export function compiledPath(server: string, uri: string): string {
  const whole = uriSegments(uri);
  const segments = whole.map((s) => [...s].slice(0, MAX_SEGMENT).join(""));
  let path = `${COMPILED_ROOT}${server}/${segments.length ? segments.join("/") : "resource"}`;
  if (!/\.md$/i.test(path)) path += ".md";
  // A cut URI gets a hash of the whole of it, so two long URIs never share a path.
  if (path.length > MAX_DERIVED_PATH || segments.some((s, i) => s !== whole[i])) {
    path = `${path.slice(0, MAX_DERIVED_PATH - 20).replace(/\.md$/i, "").replace(/[-/.]+$/, "")}-${
      sha256Hex(uri).slice(0, 12)
    }.md`;
  }
  return normalizePath(path);
}

/**
 * Reads `uri` from the server and stores it at `options.path` (default: compiledPath) in
 * `options.brain` (default: the default brain). A live document there from any other source is a
 * `conflict`; the same bytes as last time are `unchanged` and write nothing.
 */
export async function compileResource(
  deps: CompileDeps,
  request: { source: ResourceSource; uri: string },
  options: { brain?: string; path?: string } = {},
): Promise<CompileOutcome> {
  const { source, uri } = request;
  const brain = await deps.memory.brain(deps.caller, options.brain);
  const path = normalizePath(options.path ?? compiledPath(source.name, uri));
  const found = await deps.memory.findLive(brain, { path });
  const existing = found && {
    doc: found,
    provenance: (await deps.memory.provenanceOf(brain, [found])).get(found.id) ?? null,
  };
  if (existing && !compiledFrom(existing.provenance, source.name, uri)) {
    const p = existing.provenance;
    const from = p ? `upstream ${p.server} resource ${p.uri}` : `source ${existing.doc.source}`;
    throw new EngramError(
      "conflict",
      `${path} in brain "${brain.slug}" already holds a document from ${from}, not from upstream ${source.name} resource ${uri}; choose another path with --path, or forget that document first`,
    );
  }
  return await store(deps, { source, uri, brain, path, existing });
}

/** One document of a refresh and what became of it. */
export interface RefreshLine {
  path: string;
  uri: string;
  status: CompileOutcome["status"] | "failed";
  version: number;
  /** Why it failed. */
  error?: { code: string; message: string };
}

/** What `--all` did for one server in one brain. */
export interface RefreshReport {
  server: string;
  brain: string;
  documents: RefreshLine[];
  changed: number;
  unchanged: number;
  failed: number;
}

/**
 * Recompiles every document of `options.brain` compiled from the source's server (by its stored
 * provenance, wherever its path), each at its own path. One failing resource never stops the
 * others; its reason is in the report.
 */
export async function recompileAll(
  deps: CompileDeps,
  source: ResourceSource,
  options: { brain?: string } = {},
): Promise<RefreshReport> {
  const brain = await deps.memory.brain(deps.caller, options.brain);
  const live = await deps.memory.documentsUnder(brain, "/");
  const provenance = await deps.memory.provenanceOf(brain, live);
  const documents = live.flatMap((doc) => {
    const p = provenance.get(doc.id);
    return p && p.server.toLowerCase() === source.name.toLowerCase()
      ? [{ doc, provenance: p }]
      : [];
  });
  const report: RefreshReport = {
    server: source.name,
    brain: brain.slug,
    documents: [],
    changed: 0,
    unchanged: 0,
    failed: 0,
  };
  for (const existing of documents) {
    const { doc, provenance: { uri } } = existing;
    try {
      const outcome = await store(deps, { source, uri, brain, path: doc.path, existing });
      const status = outcome.status;
      report.documents.push({ path: doc.path, uri, status, version: outcome.document.version });
      if (status === "unchanged") report.unchanged++;
      else report.changed++;
    } catch (error) {
      const e = toEngramError(error);
      report.documents.push({
        path: doc.path,
        uri,
        status: "failed",
        version: doc.version,
        error: { code: e.code, message: e.message },
      });
      report.failed++;
    }
  }
  return report;
}

/** A live document at the compile's path, with its provenance if it has one. */
interface Existing {
  doc: DocumentRecord;
  provenance: Provenance | null;
}

/**
 * Fetches, and writes a version unless the bytes are the ones already stored and the document
 * still holds the text compiled from them (an edit since is replaced by upstream's text).
 */
async function store(
  deps: CompileDeps,
  o: {
    source: ResourceSource;
    uri: string;
    brain: Brain;
    path: string;
    existing: Existing | null;
  },
): Promise<CompileOutcome> {
  const { source, uri, brain, path, existing } = o;
  // The pin as the server is configured when it is read: a later change of its launch or URL shows.
  const approval = await serverIdentity(source.server);
  const fetchedAt = (deps.now?.() ?? new Date()).toISOString();
  const doc = await resourceDocument(await source.readResource(uri), { server: source.name, uri });
  const outcome = { server: source.name, uri, brain: brain.slug, sha256: doc.sha256 };
  // Compared before writing: fetched_at always differs, and would otherwise make a version.
  const kept = existing?.provenance;
  if (existing && kept && kept.sha256 === doc.sha256 && !kept.edited) {
    return { ...outcome, status: "unchanged", document: existing.doc, provenance: kept };
  }
  const { provenance, ...document } = await deps.memory.rememberCompiled(deps.caller, {
    content: doc.content,
    title: doc.title,
    brain: brain.id,
    path,
    metadata: {
      // null removes a key an earlier version had (a resource that was a PDF and is now text),
      // and the provenance keys compiled documents once kept in metadata.
      ...dropLegacyProvenance(),
      source_format: null,
      ...doc.metadata,
    },
  }, {
    provenance: {
      server: source.name,
      uri,
      mime_type: doc.mimeType,
      fetched_at: fetchedAt,
      sha256: doc.sha256,
      approval,
    },
    contentType: doc.contentType,
  });
  return { ...outcome, status: existing ? "changed" : "created", document, provenance };
}

/** Whether provenance says the document was compiled from this server's `uri`. */
function compiledFrom(p: Provenance | null, server: string, uri: string): boolean {
  return p !== null && p.uri === uri && p.server.toLowerCase() === server.toLowerCase();
}

/** The URI as path segments: scheme, host, path and query, each reduced to safe characters. */
function uriSegments(uri: string): string[] {
  let raw: string[];
  try {
    const url = new URL(uri);
    raw = [
      url.protocol.replace(/:$/, ""),
      url.host,
      ...url.pathname.split("/"),
      url.search.replace(/^\?/, ""),
    ];
  } catch {
    raw = uri.split(/[/:?#]+/);
  }
  return raw.map(safeSegment).filter((s) => s !== "");
}

function safeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Not percent-encoded after all: keep it as written.
  }
  return text.normalize("NFKC").replace(/[^\p{L}\p{N}._-]+/gu, "-").replace(/^[-.]+|-+$/g, "");
}
