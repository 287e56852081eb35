/**
 * @module Schema defaults for an accepted elicitation form (SEP-1034): a field the user left out
 * takes the `default` its requested schema gives. engram applies them itself rather than relying
 * on the SDK's client wrapper, so every path that accepts a form (terminal prompt, a connected
 * client, a test host) answers with them.
 */
import type { ElicitRequestFormParams } from "../../sdk.ts";

/** The content of an accepted form. */
export type FormContent = Record<string, string | number | boolean | string[]>;

/** `content` with every missing field that has a schema default filled in (a new object). */
export function withSchemaDefaults(
  schema: ElicitRequestFormParams["requestedSchema"],
  content: FormContent | undefined,
): FormContent {
  const out: FormContent = { ...content };
  for (const [key, field] of Object.entries(schema.properties)) {
    if (out[key] !== undefined) continue;
    const value = (field as { default?: unknown }).default;
    if (
      typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
      (Array.isArray(value) && value.every((v) => typeof v === "string"))
    ) {
      out[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return out;
}
