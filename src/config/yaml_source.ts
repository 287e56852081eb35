/** @module Parsing YAML while keeping line numbers, so config errors can point at the line. */
import { type Document, isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { EngramError } from "../core/errors.ts";

/** A parsed YAML file that can tell the line of any key path. */
export interface YamlSource {
  file: string;
  value: unknown;
  lineOf(path: readonly PropertyKey[]): number | undefined;
}

/** Parses YAML text; syntax errors name the file and line. */
export function parseYamlSource(file: string, text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) {
    const line = problem.linePos?.[0]?.line ?? lineCounter.linePos(problem.pos[0]).line;
    throw new EngramError(
      "invalid_argument",
      `config ${file}:${line}: ${problem.message.split("\n")[0]}`,
      { cause: problem },
    );
  }
  return {
    file,
    value: doc.toJS() ?? {},
    lineOf(path) {
      // Walk as deep as the path exists; a missing key reports its parent's line.
      let node: unknown = doc.contents;
      let found = node as { range?: [number, number, number] } | undefined;
      for (const key of path) {
        if (isMap(node)) {
          const pair = node.items.find((p) => (p.key as { value?: unknown })?.value === key);
          if (!pair) break;
          found = (pair.key as { range?: [number, number, number] }) ?? found;
          node = pair.value;
        } else if (isSeq(node) && typeof key === "number") {
          node = node.items[key];
          if (!node) break;
          found = node as { range?: [number, number, number] };
        } else break;
      }
      return found?.range ? lineCounter.linePos(found.range[0]).line : undefined;
    },
  };
}
