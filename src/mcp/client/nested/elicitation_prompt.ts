/**
 * @module Asking the operator on a terminal when an upstream elicits (`engram mcp call` on a TTY):
 * first whether to answer at all (consent), then each form field with its schema default offered
 * (Enter takes it), checked against its type, bounds and choices; in URL mode, the URL and its
 * host shown plainly, never opened by engram. Everything the upstream wrote is neutralised before
 * it reaches the terminal. Reads lines from an injected reader so it can be driven by tests.
 */
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "../../sdk.ts";
import { type FormContent, withSchemaDefaults } from "./form_defaults.ts";
import type { ElicitFn } from "./nested_requests.ts";
import { neutralise } from "../upstream_text.ts";

/** A line-based terminal: `readLine` resolves null at end of input. */
export interface LineIO {
  readLine(): Promise<string | null>;
  write(text: string): void | Promise<void>;
}

/** Tries per field before the whole form is cancelled. */
const TRIES = 3;

type Field = ElicitRequestFormParams["requestedSchema"]["properties"][string];

/** An ElicitFn that asks on `io`. */
export function terminalElicitation(io: LineIO): ElicitFn {
  return async (params, context) => {
    const who = `upstream ${JSON.stringify(context.server)}`;
    // The time ran out or the upstream withdrew the question: say so rather than wait in silence.
    const closed = () =>
      void io.write(
        `\n(${who} no longer waits for this answer: ${
          neutralise(String(context.signal.reason ?? "cancelled"))
        })\n`,
      );
    context.signal.addEventListener("abort", closed, { once: true });
    try {
      if (params.mode === "url") return await askUrl(io, who, params as ElicitRequestURLParams);
      return await askForm(io, who, params as ElicitRequestFormParams);
    } finally {
      context.signal.removeEventListener("abort", closed);
    }
  };
}

async function askUrl(io: LineIO, who: string, params: ElicitRequestURLParams) {
  let host = "";
  try {
    host = new URL(params.url).host;
  } catch {
    host = "(not a valid URL)";
  }
  await io.write(
    `\n${who} asks you to open a web page: ${neutralise(params.message)}\n` +
      `  ${neutralise(params.url)}\n  (host: ${
        neutralise(host)
      }; engram does not open it for you)\n`,
  );
  const answer = await choose(io, "Open it and finish there? [y]es / [n]o, decline: ", [
    "y",
    "n",
  ]);
  if (answer === null) return { action: "cancel" } as ElicitResult;
  return { action: answer === "y" ? "accept" : "decline" } as ElicitResult;
}

async function askForm(io: LineIO, who: string, params: ElicitRequestFormParams) {
  await io.write(`\n${who} asks: ${neutralise(params.message)}\n`);
  const answer = await choose(io, "Answer it? [y]es / [n]o, decline / [c]ancel: ", [
    "y",
    "n",
    "c",
  ]);
  if (answer === null || answer === "c") return { action: "cancel" } as ElicitResult;
  if (answer === "n") return { action: "decline" } as ElicitResult;
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const content: FormContent = {};
  for (const [key, field] of Object.entries(schema.properties)) {
    const value = await askField(io, key, field, required.has(key));
    if (value === CANCEL) return { action: "cancel" } as ElicitResult;
    if (value !== undefined) content[key] = value;
  }
  return { action: "accept", content: withSchemaDefaults(schema, content) } as ElicitResult;
}

const CANCEL = Symbol("cancel");

async function askField(
  io: LineIO,
  key: string,
  field: Field,
  required: boolean,
): Promise<FormContent[string] | undefined | typeof CANCEL> {
  const f = field as Field & { title?: string; description?: string; default?: unknown };
  const label = neutralise(f.title ?? key);
  const about = f.description ? ` — ${neutralise(f.description)}` : "";
  const choices = choicesOf(field);
  const hint = choices
    ? ` (${choices.map((c, i) => `${i + 1}=${neutralise(c.label)}`).join(", ")})`
    : ` (${field.type}${required ? ", required" : ""})`;
  const fallback = f.default === undefined ? "" : ` [${neutralise(String(f.default))}]`;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    await io.write(`${label}${about}${hint}${fallback}: `);
    const line = await io.readLine();
    if (line === null) return CANCEL;
    const text = line.trim();
    if (text === "") {
      if (f.default !== undefined || !required) return undefined; // defaults fill it in later
      await io.write(`  ${label} is required\n`);
      continue;
    }
    const parsed = parseValue(text, field, choices);
    if (typeof parsed === "object" && parsed !== null && "problem" in parsed) {
      await io.write(`  ${parsed.problem}\n`);
      continue;
    }
    return parsed;
  }
  await io.write(`  no valid answer for ${label}; the form is cancelled\n`);
  return CANCEL;
}

interface Choice {
  value: string;
  label: string;
}

/** The allowed values of an enum field (single or multi-select), or null. */
function choicesOf(field: Field): Choice[] | null {
  const f = field as {
    enum?: string[];
    enumNames?: string[];
    oneOf?: { const: string; title?: string }[];
    items?: { enum?: string[]; anyOf?: { const: string; title?: string }[] };
  };
  const list = f.oneOf ?? f.items?.anyOf;
  if (list) return list.map((o) => ({ value: o.const, label: o.title ?? o.const }));
  const values = f.enum ?? f.items?.enum;
  if (values) return values.map((v, i) => ({ value: v, label: f.enumNames?.[i] ?? v }));
  return null;
}

/** One answer parsed for its field, or the problem with it. */
function parseValue(
  text: string,
  field: Field,
  choices: Choice[] | null,
): FormContent[string] | { problem: string } {
  const pick = (t: string): string | null => {
    const n = Number(t);
    if (choices && Number.isInteger(n) && n >= 1 && n <= choices.length) {
      return choices[n - 1].value;
    }
    return choices?.find((c) => c.value === t || c.label === t)?.value ?? null;
  };
  if (field.type === "array") {
    const picked = text.split(",").map((t) => pick(t.trim()));
    if (picked.some((p) => p === null)) {
      return { problem: "pick from the listed choices, separated by commas" };
    }
    return picked as string[];
  }
  if (choices) return pick(text) ?? { problem: "pick one of the listed choices (number or value)" };
  switch (field.type) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      return { problem: "answer yes or no" };
    case "integer":
    case "number": {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) {
        return { problem: `enter ${field.type === "integer" ? "a whole number" : "a number"}` };
      }
      if (field.minimum !== undefined && n < field.minimum) {
        return { problem: `at least ${field.minimum}` };
      }
      if (field.maximum !== undefined && n > field.maximum) {
        return { problem: `at most ${field.maximum}` };
      }
      return n;
    }
    default: {
      const s = field as { minLength?: number; maxLength?: number };
      if (s.minLength !== undefined && text.length < s.minLength) {
        return { problem: `at least ${s.minLength} characters` };
      }
      if (s.maxLength !== undefined && text.length > s.maxLength) {
        return { problem: `at most ${s.maxLength} characters` };
      }
      return text;
    }
  }
}

/** Reads until one of `options` (first letter, any case) is given; null at end of input. */
async function choose(io: LineIO, question: string, options: string[]): Promise<string | null> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    await io.write(question);
    const line = await io.readLine();
    if (line === null) return null;
    const first = line.trim().toLowerCase().slice(0, 1);
    if (options.includes(first)) return first;
  }
  return null;
}
