/** @module The rule every tool name and tool glob engram accepts follows. */

/**
 * A tool name or a glob over tool names: 1–64 letters, digits, `_` and `-`, with `*` and `?` as
 * wildcards. Token tool lists, the config's `server.tools` and `--tools` lists are held to it, and
 * the tool selection turns such a glob into a regular expression without escaping more.
 */
export const TOOL_NAME_OR_GLOB = /^[A-Za-z0-9_*?-]{1,64}$/;
