import { errorMessage, SynError } from "./errors.ts";
import { jsonErrorOffset } from "./_json_error_offset.ts";

/** Line and column (1-based) of a UTF-16 offset in a text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let index = 0; index < end; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * `JSON.parse` whose failure names the source, line and column:
 * a `SynError` with code `parse_error` and data `{ source, line, column }`.
 */
export function parseJson(text: string, source = "<input>"): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const located = jsonErrorOffset(text);
    const { line, column } = lineColumnAt(text, located ? located.offset : text.length);
    const reason = located ? located.reason : errorMessage(error);
    throw new SynError("parse_error", `${source}:${line}:${column}: invalid JSON: ${reason}`, {
      source,
      line,
      column,
    });
  }
}
