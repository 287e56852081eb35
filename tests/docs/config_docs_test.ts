/**
 * @module docs/configuration.md against the config schema: every key the zod schema accepts must be
 * written on the page as inline code with its full dotted path (`server.tools`,
 * `mcp.mcp_servers[].command`), and every top-level key must have its own `##` section, so a key
 * added to the schema cannot go undocumented.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { ConfigSchema } from "../../src/config/schema.ts";

const PAGE = new URL("../../docs/configuration.md", import.meta.url);

/** The parts of a zod 4 schema definition the walk reads. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Wrappers that say how a value is read (optional, default, preprocess…), not what it holds. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch"]);

/** The schema under its wrappers; of a pipe, the side that is not a transform. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === "pipe" && def.in && def.out) {
      s = defOf(def.out).type === "transform" ? def.in : def.out;
    } else return s;
  }
}

/**
 * The dotted paths of every key below `prefix`: `a.b` for an object's key, `a[]` for the entries
 * of a list, `a.<name>` for the values of a map; a union contributes the keys of all its options.
 */
function keysUnder(schema: z.ZodType, prefix: string): string[] {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case "object":
      return Object.entries(def.shape ?? {}).flatMap(([key, child]) => {
        const path = prefix ? `${prefix}.${key}` : key;
        return [path, ...keysUnder(child, path)];
      });
    case "array":
      return def.element ? keysUnder(def.element, `${prefix}[]`) : [];
    case "record":
      return def.valueType ? keysUnder(def.valueType, `${prefix}.<name>`) : [];
    case "union":
      return [...new Set((def.options ?? []).flatMap((o) => keysUnder(o, prefix)))];
    default:
      return [];
  }
}

/** Every key path of the config file. */
function configKeys(): string[] {
  return keysUnder(ConfigSchema as unknown as z.ZodType, "");
}

/** The text of every inline code span on the page. */
function inlineCode(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]));
}

Deno.test("the schema walk finds every key, nested ones and union options included", () => {
  const keys = configKeys();
  assert.ok(keys.length > 60, `expected more than 60 config keys, found ${keys.length}`);
  for (
    const known of [
      "data_dir",
      "server.tools",
      "storage.search_cache_mb",
      "mcp.mcp_servers",
      "mcp.mcp_servers[].command",
      "mcp.mcp_servers[].url",
      "mcp.mcp_servers[].sampling.max_tokens",
      "mcp.mcp_servers[].expose.tools",
      "providers[].embedding_model",
      "consolidate.prune_episodes_after_days",
    ]
  ) {
    assert.ok(keys.includes(known), `the walk missed ${known}`);
  }
  assert.equal(new Set(keys).size, keys.length, "a key was listed twice");
});

Deno.test("docs/configuration.md names every config key as inline code", async () => {
  const page = await Deno.readTextFile(PAGE);
  const code = inlineCode(page);
  const missing = configKeys().filter((key) => !code.has(key));
  assert.deepEqual(missing, [], `keys missing from docs/configuration.md: ${missing.join(", ")}`);
});

Deno.test("docs/configuration.md has a ## section for every top-level key", async () => {
  const page = await Deno.readTextFile(PAGE);
  const headings = new Set([...page.matchAll(/^## (.+)$/gm)].map((m) => m[1].trim()));
  const topLevel = configKeys().filter((key) => !/[.[]/.test(key));
  assert.ok(topLevel.includes("server") && topLevel.includes("providers"));
  const missing = topLevel.filter((key) => !headings.has(key));
  assert.deepEqual(missing, [], `no "## <key>" section for: ${missing.join(", ")}`);
});
