import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { SynError } from "./errors.ts";
import { lineColumnAt } from "./parse_json.ts";

/**
 * JSON with comments (JSONC, as `syn.jsonc` and editors write it: `//` and `/* … *\/`
 * comments, trailing commas), parsed by `jsonc-parser`. A failure is a `SynError` with code
 * `parse_error` naming the source, line and column of the first problem.
 */
export function parseJsonc(text: string, source = "<input>"): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first === undefined) return value;
  const { line, column } = lineColumnAt(text, first.offset);
  const reason = printParseErrorCode(first.error);
  throw new SynError("parse_error", `${source}:${line}:${column}: invalid JSONC: ${reason}`, {
    source,
    line,
    column,
  });
}
