/**
 * @module The console's static files (a script, a stylesheet, an icon), hand-written (no bundler, no build step): imported as
 * text, so `deno compile` embeds them in the binary with the code (docs/console.md#assets); served
 * under a content-hash query so a browser may cache them for long.
 */
import { sha256Hex } from "../../core/hash.ts";
import script from "./assets/console.js" with { type: "text" };
import style from "./assets/console.css" with { type: "text" };
import icon from "./assets/icon.svg" with { type: "text" };

/** One served asset. */
interface Asset {
  body: string;
  type: string;
  /** Its content hash's start: the `?v=` of its URL. */
  version: string;
}

function asset(body: string, type: string): Asset {
  return { body, type, version: sha256Hex(body).slice(0, 12) };
}

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["console.js", asset(script, "text/javascript; charset=utf-8")],
  ["console.css", asset(style, "text/css; charset=utf-8")],
  ["icon.svg", asset(icon, "image/svg+xml")],
]);

/** The path prefix assets are served under. */
export const ASSET_PREFIX = "/console/assets/";

/** The URL of an asset, with its version. */
export function assetUrl(name: "console.js" | "console.css" | "icon.svg"): string {
  return `${ASSET_PREFIX}${name}?v=${ASSETS.get(name)!.version}`;
}

/** The response for an asset path, or null when there is no such asset. */
export function assetResponse(path: string, headers: Headers): Response | null {
  const found = ASSETS.get(path.slice(ASSET_PREFIX.length));
  if (!found) return null;
  headers.set("Content-Type", found.type);
  // Versioned URLs: a changed file gets a new URL, so the old one may be kept a day.
  headers.set("Cache-Control", "public, max-age=86400, immutable");
  return new Response(found.body, { headers });
}
