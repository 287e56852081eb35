/**
 * @module JSON as editors write it for MCP client configs: VS Code allows comments and trailing
 * commas in mcp.json and settings.json. Anything else that is not JSON is one line naming the
 * file, the line and the column.
 */
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { EngramError } from "../../../core/errors.ts";

const PARSE_ERRORS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "malformed number",
  PropertyNameExpected: "a property name was expected",
  ValueExpected: "a value was expected",
  ColonExpected: '":" was expected',
  CommaExpected: '"," was expected',
  CloseBraceExpected: '"}" was expected',
  CloseBracketExpected: '"]" was expected',
  EndOfFileExpected: "more text after the end of the JSON value",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
};

/** Parses JSON with comments and trailing commas; `what` names the input, `hint` is the fix. */
export function parseJsonWithComments(
  text: string,
  options: { what: string; hint: string },
): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return value;
  const before = text.slice(0, first.offset);
  const line = before.split("\n").length;
  const column = first.offset - before.lastIndexOf("\n");
  const code = printParseErrorCode(first.error);
  throw new EngramError(
    "invalid_argument",
    `${options.what} is not JSON: ${
      PARSE_ERRORS[code] ?? code
    } at line ${line}, column ${column}; ${options.hint}`,
  );
}

/**
 * Why `text` is not strict JSON (no comments, no trailing commas), where: "a value was expected at
 * position 9 (line 1, column 10)"; null when it is JSON.
 */
export function strictJsonError(text: string): string | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  const first = errors[0];
  if (!first) return null;
  const before = text.slice(0, first.offset);
  const code = printParseErrorCode(first.error);
  return `${PARSE_ERRORS[code] ?? code} at position ${first.offset} (line ${
    before.split("\n").length
  }, column ${first.offset - before.lastIndexOf("\n")})`;
}
