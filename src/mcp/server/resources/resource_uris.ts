/**
 * @module engram:// resource URIs: the templates, parsing a URI into what it names, and building
 * URIs. Paging a brain's document listing uses `?cursor=` in the URI, since resources/read has
 * no cursor parameter of its own.
 */

/** The URI (or URI template) of every kind of resource. */
export const RESOURCE_TEMPLATES = {
  help: "engram://context/help",
  status: "engram://context/status",
  brains: "engram://brains",
  listing: "engram://brains/{brain}/documents",
  document: "engram://documents/{id}",
  path: "engram://brains/{brain}/documents/{+path}",
  search: "engram://context/search{?query,limit}",
} as const;

/** What a resource URI names. Brains are as written in the URI (slug or id); paths start with `/`. */
export type ResourceTarget =
  | { kind: "help" | "status" | "brains" }
  | { kind: "listing"; brain: string; cursor?: string }
  | { kind: "document"; id: string }
  | { kind: "path"; brain: string; path: string }
  | { kind: "search"; query?: string; limit?: string; brain?: string };

/** What `uri` names, or null when it is no engram resource. */
export function parseResourceUri(uri: string): ResourceTarget | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== "engram:") return null;
  const segments = decodeSegments(url.pathname);
  if (segments === null) return null;
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  switch (url.host) {
    case "context":
      if (segments.length !== 1) return null;
      if (segments[0] === "help" || segments[0] === "status") return { kind: segments[0] };
      if (segments[0] === "search") {
        return {
          kind: "search",
          query: param("query"),
          limit: param("limit"),
          brain: param("brain"),
        };
      }
      return null;
    case "documents":
      return segments.length === 1 && segments[0] ? { kind: "document", id: segments[0] } : null;
    case "brains":
      return brainTarget(segments, param("cursor"));
    default:
      return null;
  }
}

function brainTarget(segments: string[], cursor?: string): ResourceTarget | null {
  if (segments.length === 0) return { kind: "brains" };
  const [brain, documents, ...rest] = segments;
  if (!brain || documents !== "documents") return null;
  const path = rest.filter((s) => s !== "");
  if (path.length === 0) return { kind: "listing", brain, ...(cursor ? { cursor } : {}) };
  return { kind: "path", brain, path: "/" + path.join("/") };
}

/** Path segments, percent-decoded; null when an escape is malformed. */
function decodeSegments(pathname: string): string[] | null {
  const raw = pathname.replace(/^\/+/, "");
  if (raw === "") return [];
  try {
    return raw.split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** The URI of a document by id. */
export function documentUri(id: string): string {
  return `engram://documents/${encodeURIComponent(id)}`;
}

/** The URI of a document by brain and path (`/a/b.md` → `engram://brains/x/documents/a/b.md`). */
export function pathUri(brain: string, path: string): string {
  const segments = path.split("/").filter((s) => s !== "").map(encodeURIComponent);
  return `engram://brains/${encodeURIComponent(brain)}/documents/${segments.join("/")}`;
}

/** The URI of a brain's document listing, at a page when `cursor` is given. */
export function listingUri(brain: string, cursor?: string): string {
  const base = `engram://brains/${encodeURIComponent(brain)}/documents`;
  return cursor ? `${base}?cursor=${encodeURIComponent(cursor)}` : base;
}
