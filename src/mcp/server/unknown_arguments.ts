/**
 * @module Arguments a tool does not have. zod drops unknown keys without a word, so an agent that
 * writes `topk` for `top_k` would never learn why its setting had no effect; the listed input
 * schemas say `additionalProperties: false`, and a call is held to that (docs/tools.md#errors).
 * No client adds keys of its own to `arguments` (the MCP SDK clients send them as given; `_meta`
 * travels beside them in the request's params), so none is let through.
 */
import type { z } from "zod";
import { EngramError } from "../../core/errors.ts";
import { meantName } from "../../core/text/edit_distance.ts";

/** One key an object schema does not name: where it is, and the keys that object does have. */
export interface UnknownKey {
  /** Dotted path of the key (`top_k`, `messages.0.rol`). */
  path: string;
  known: string[];
}

/** The def of a zod 4 schema, as far as this walk reads it. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Every key of `value` that `schema` does not name, at any depth; maps (records) take any key. */
export function unknownKeys(schema: z.ZodType, value: unknown, path = ""): UnknownKey[] {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return unknownKeys(def.innerType!, value, path);
    case "pipe":
      return unknownKeys(def.in!, value, path);
    case "lazy":
      return unknownKeys(def.getter!(), value, path);
    case "array":
      return Array.isArray(value)
        ? value.flatMap((v, i) => unknownKeys(def.element!, v, join(path, String(i))))
        : [];
    case "union": {
      // The option that fits best speaks for the value: an exact fit has nothing to report.
      const found = def.options!.map((o) => unknownKeys(o, value, path));
      return found.reduce((a, b) => (b.length < a.length ? b : a));
    }
    case "intersection": {
      const left = unknownKeys(def.left!, value, path).map((k) => k.path);
      return unknownKeys(def.right!, value, path).filter((k) => left.includes(k.path));
    }
    case "object":
      return objectKeys(def, value, path);
    default:
      return [];
  }
}

function objectKeys(def: Def, value: unknown, path: string): UnknownKey[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const shape = def.shape ?? {};
  const known = Object.keys(shape);
  // A loose object (catchall unknown) takes any key; a strict one (never) is held like the rest.
  const open = def.catchall !== undefined && defOf(def.catchall).type !== "never";
  return Object.entries(value).flatMap(([key, v]) =>
    key in shape
      ? unknownKeys(shape[key], v, join(path, key))
      : open
      ? []
      : [{ path: join(path, key), known }]
  );
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** Throws `invalid_argument` naming each unknown key (up to eight) and the key likely meant. */
export function refuseUnknownKeys(schema: z.ZodType, value: unknown, tool: string): void {
  const unknown = unknownKeys(schema, value);
  if (unknown.length === 0) return;
  const details = unknown.slice(0, 8).map(({ path, known }) => {
    const meant = meantName(path.split(".").pop()!, known);
    const at = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : tool;
    return `unknown argument "${path}"${meant ? ` (did you mean "${meant}"?)` : ""}; ${at} takes ${
      known.length ? known.join(", ") : "no arguments"
    }`;
  });
  throw new EngramError("invalid_argument", `invalid arguments for ${tool}: ${details.join("; ")}`);
}
