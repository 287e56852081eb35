/** @module The engram version, from deno.json so there is one place to bump it. */
import manifest from "../deno.json" with { type: "json" };

/** engram's version. */
export const VERSION: string = manifest.version;

/** The MCP protocol revision engram is built for. */
export const PROTOCOL_VERSION = "2025-11-25";

/** The Deno version engram is pinned to (deno.json `engram.deno`). */
export const PINNED_DENO: string = manifest.engram.deno;
