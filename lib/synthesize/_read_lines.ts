import {
  type ByteSource,
  isByteSource,
  type LineRead,
  readLines as readCoreLines,
} from "../core/mod.ts";
/** One line of a JSONL input: its text, or why it cannot be read. Lines count from 1. */
export type InputLine =
  | { line: number; text: string; problem?: undefined }
  | { line: number; text?: undefined; problem: string };

export interface LineLimits {
  /** A longer line is reported and skipped without being held in memory. */
  maxLineBytes: number;
  /** Past this many bytes the rest of the input is reported and not read. */
  maxFileBytes: number;
}

/**
 * The lines of a JSONL input, by core's `readLines` with the caps enforced before any
 * decoding or parsing: an over-long line is dropped as it streams (only its length is
 * counted), an input past its cap ends with one problem line, and a line that is not
 * UTF-8 is a problem, not mojibake. Blank lines are not yielded; they are counted. The
 * stream is cancelled when the lines end (a file's stream closes its file).
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array> | ByteSource,
  limits: LineLimits,
): AsyncGenerator<InputLine> {
  let line = 0;
  try {
    const lines = readCoreLines(stream, {
      maxLineBytes: limits.maxLineBytes,
      maxBytes: limits.maxFileBytes,
      fatal: true,
    });
    for await (const read of lines) {
      line++;
      if (read.kind === "line") {
        if (read.text.trim() !== "") yield { line, text: read.text };
      } else yield { line, problem: problemOf(read, limits) };
    }
  } finally {
    if (!isByteSource(stream)) await stream.cancel().catch(() => {});
  }
}

function problemOf(read: Exclude<LineRead, { kind: "line" }>, limits: LineLimits): string {
  switch (read.kind) {
    case "oversize":
      return `line longer than ${limits.maxLineBytes} bytes`;
    case "undecodable":
      return "not UTF-8 text";
    case "over_limit":
      return `input larger than ${limits.maxFileBytes} bytes: the rest is not read`;
  }
}
