import { byteReader, type ByteSource } from "./byte_reader.ts";

/**
 * One line read by `readLines`: its text; or, never held in memory, a line past the cap
 * (its length and first bytes); a line that is not UTF-8 (only with `fatal`); or the input
 * past `maxBytes`, after which nothing more is read.
 */
export type LineRead =
  | { kind: "line"; text: string }
  | { kind: "oversize"; bytes: number; prefix: string }
  | { kind: "undecodable"; bytes: number }
  | { kind: "over_limit"; bytes: number };

/** Options of {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** The largest line yielded as text (UTF-8 bytes; `\n` excluded, a `\r` before it counted). */
  maxLineBytes: number;
  /** Past this many bytes of input, one `over_limit` item ends the lines (default: none). */
  maxBytes?: number;
  /** A line that is not UTF-8 becomes an `undecodable` item instead of text with U+FFFD. */
  fatal?: boolean;
  /** Ends the lines: the stream is cancelled. */
  signal?: AbortSignal;
  /** How many bytes of an oversized line its `prefix` keeps (default 256). */
  keptPrefixBytes?: number;
}

/** How many bytes of an oversized line are kept, so a cheap look at its start is possible. */
const KEPT_PREFIX_BYTES = 256;

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * Splits a byte stream into lines (`\n`; a `\r` before it and a byte order mark at a line's
 * start are dropped), enforcing the caps before anything is decoded: a line longer than
 * `maxLineBytes` is never buffered whole — once it passes the cap its bytes are counted and
 * discarded up to the next `\n`, and one `oversize` item reports it. A last line without
 * `\n` counts as a line; every line, blank ones too, is yielded. The one line reader of
 * syn: NDJSON peers, JSONL inputs, piped REPL input and child processes' stderr.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array> | ByteSource,
  options: ReadLinesOptions,
): AsyncGenerator<LineRead> {
  const { maxLineBytes, maxBytes = Infinity, keptPrefixBytes = KEPT_PREFIX_BYTES } = options;
  const decoder = new TextDecoder("utf-8", { fatal: options.fatal ?? false });
  // Each chunk is split (and what is kept of it copied) before the next read.
  const reader = byteReader(stream, { lend: true });
  const onAbort = () => reader.cancel().catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let discarding = false;
  let discarded = 0;
  let prefix = "";
  let total = 0;

  const lineOf = (last: Uint8Array): LineRead => {
    const bytes = pending.length === 0
      ? last
      : joined([...pending, last], pendingBytes + last.length);
    pending = [];
    pendingBytes = 0;
    return decodeLine(bytes, decoder);
  };

  const startDiscarding = (extra: Uint8Array) => {
    const head = joined([...pending, extra], pendingBytes + extra.length, keptPrefixBytes);
    prefix = new TextDecoder().decode(head);
    discarded = pendingBytes + extra.length;
    discarding = true;
    pending = [];
    pendingBytes = 0;
  };

  try {
    while (!options.signal?.aborted) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.length;
      const whole = !discarding && pendingBytes === 0
        ? wholeLine(value, maxLineBytes, decoder)
        : undefined;
      if (whole !== undefined) yield whole;
      else {
        let start = 0;
        while (start < value.length) {
          const newline = value.indexOf(NEWLINE, start);
          const piece = value.subarray(start, newline === -1 ? value.length : newline);
          if (discarding) discarded += piece.length;
          else if (pendingBytes + piece.length > maxLineBytes) startDiscarding(piece);
          // `slice`, not `subarray`: the chunk is lent, overwritten by the next read.
          else if (newline === -1) {
            pending.push(piece.slice());
            pendingBytes += piece.length;
          }
          if (newline === -1) break;
          if (discarding) {
            discarding = false;
            yield { kind: "oversize", bytes: discarded, prefix };
          } else yield lineOf(piece);
          start = newline + 1;
        }
      }
      if (total > maxBytes) {
        yield { kind: "over_limit", bytes: total };
        return;
      }
    }
    if (options.signal?.aborted) return;
    if (discarding) yield { kind: "oversize", bytes: discarded, prefix };
    else if (pendingBytes > 0) yield lineOf(new Uint8Array(0));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    // The stream stays open (a connection may go on): closing it is its owner's call.
    reader.releaseLock();
  }
}

/** The first `limit` bytes of the parts, whose lengths add up to `length`, as one array. */
function joined(parts: Uint8Array[], length: number, limit = length): Uint8Array {
  const bytes = new Uint8Array(Math.min(length, limit));
  let offset = 0;
  for (const part of parts) {
    if (offset >= bytes.length) break;
    const take = part.subarray(0, bytes.length - offset);
    bytes.set(take, offset);
    offset += take.length;
  }
  return bytes;
}

/** A line's bytes (its `\n` excluded) as text, a trailing `\r` dropped. */
function decodeLine(bytes: Uint8Array, decoder: TextDecoder): LineRead {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
  try {
    return { kind: "line", text: decoder.decode(bytes.subarray(0, end)) };
  } catch {
    return { kind: "undecodable", bytes: end };
  }
}

/**
 * The line `chunk` holds when it is exactly one line of at most `maxLineBytes` and its `\n`
 * (the usual read of a peer that sends a request and waits), else `undefined`. Decoding
 * first and looking for another `\n` in the text is several times faster than scanning
 * the bytes, and exact: byte 10 never occurs inside a multi-byte UTF-8 sequence, and a
 * chunk that ends with it ends on a character boundary.
 */
function wholeLine(
  chunk: Uint8Array,
  maxLineBytes: number,
  decoder: TextDecoder,
): LineRead | undefined {
  let end = chunk.length - 1;
  if (end < 0 || end > maxLineBytes || chunk[end] !== NEWLINE) return undefined;
  if (end > 0 && chunk[end - 1] === CARRIAGE_RETURN) end--;
  let text: string;
  try {
    text = decoder.decode(chunk.subarray(0, end));
  } catch {
    return undefined; // not UTF-8: the split path reports the line it is in
  }
  return text.includes("\n") ? undefined : { kind: "line", text };
}
