import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { lineColumnAt, SynError } from "../core/mod.ts";

/**
 * JSON with comments (JSONC, as `syn.jsonc` and editors write it: `//` and `/* … *\/`
 * comments, trailing commas), parsed by `jsonc-parser`. A failure is a `SynError` with code
 * `parse_error` naming the source, line and column of the first problem. It lives here,
 * beside its one reader, so that commands that read no `syn.jsonc` never load the parser.
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
