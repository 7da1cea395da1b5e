import { concatBytes } from "../core/mod.ts";
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

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines, enforcing the caps before any decoding or parsing:
 * an over-long line is dropped as it streams (only its length is counted), a file past its
 * cap ends with one problem line, and a line that is not UTF-8 is a problem, not mojibake.
 * A trailing `\r` and a leading byte order mark are removed; blank lines are not yielded.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  limits: LineLimits,
): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let parts: Uint8Array[] = [];
  let lineBytes = 0;
  let total = 0;
  let line = 1;
  const finish = (): InputLine | undefined => {
    const current = line++;
    const [kept, length] = [parts, lineBytes];
    parts = [];
    lineBytes = 0;
    if (length > limits.maxLineBytes) {
      return { line: current, problem: `line longer than ${limits.maxLineBytes} bytes` };
    }
    try {
      const text = decoder.decode(kept.length === 1 ? kept[0] : concatBytes(kept, length))
        .replace(/\r$/, "");
      return text.trim() === "" ? undefined : { line: current, text };
    } catch {
      return { line: current, problem: "not UTF-8 text" };
    }
  };
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      let start = 0;
      while (start < value.length) {
        const end = value.indexOf(NEWLINE, start);
        const stop = end === -1 ? value.length : end;
        keep(value.subarray(start, stop));
        if (end === -1) break;
        const entry = finish();
        if (entry) yield entry;
        start = end + 1;
      }
      if (total > limits.maxFileBytes) {
        yield {
          line,
          problem: `input larger than ${limits.maxFileBytes} bytes: the rest is not read`,
        };
        return;
      }
    }
    if (lineBytes > 0) {
      const entry = finish();
      if (entry) yield entry;
    }
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }

  function keep(piece: Uint8Array): void {
    if (piece.length === 0) return;
    lineBytes += piece.length;
    // Past the cap only the length is counted: a 2 GiB line never sits in memory.
    if (lineBytes <= limits.maxLineBytes) parts.push(piece.slice());
  }
}
