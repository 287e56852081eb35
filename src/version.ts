/** @module The engram version, from deno.json so there is one place to bump it. */
import manifest from "../deno.json" with { type: "json" };

/** engram's version. */
export const VERSION: string = manifest.version;

/** The MCP protocol revision engram is built for. */
export const PROTOCOL_VERSION = "2025-11-25";
