import { byteReader, type ByteSource } from "../core/mod.ts";

/** 1 MiB: the largest line (UTF-8 bytes, newline excluded) either side accepts (MCP spec §3). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** How many bytes of an oversized line are kept, so a cheap look at its `id` is possible. */
const KEPT_PREFIX_BYTES = 256;

/** One framed line, or the report that a line was too long and was discarded unread. */
export type NdjsonLine =
  | { kind: "line"; text: string }
  | { kind: "oversize"; bytes: number; prefix: string };

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;

/**
 * Splits a byte stream into NDJSON lines (`\n`, an optional `\r` before it is dropped).
 * A line longer than `maxLineBytes` is never buffered whole: once it passes the cap its
 * bytes are discarded up to the next `\n`, and one `oversize` item reports it. A last
 * line without `\n` at the end of the stream counts as a line.
 */
export async function* readNdjsonLines(
  stream: ReadableStream<Uint8Array> | ByteSource,
  options: { maxLineBytes?: number; signal?: AbortSignal } = {},
): AsyncGenerator<NdjsonLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const decoder = new TextDecoder();
  // Each chunk is split (and what is kept of it copied) before the next read.
  const reader = byteReader(stream, { lend: true });
  const onAbort = () => reader.cancel().catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let discarding = false;
  let discarded = 0;
  let prefix = "";

  const decodeLine = (last: Uint8Array): string => {
    let bytes: Uint8Array;
    if (pending.length === 0) bytes = last;
    else {
      bytes = new Uint8Array(pendingBytes + last.length);
      let offset = 0;
      for (const chunk of pending) {
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
      bytes.set(last, offset);
    }
    pending = [];
    pendingBytes = 0;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
    return decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
  };

  const startDiscarding = (extra: Uint8Array) => {
    const head = new Uint8Array(Math.min(KEPT_PREFIX_BYTES, pendingBytes + extra.length));
    let offset = 0;
    for (const chunk of [...pending, extra]) {
      if (offset >= head.length) break;
      const take = chunk.subarray(0, head.length - offset);
      head.set(take, offset);
      offset += take.length;
    }
    prefix = decoder.decode(head);
    discarded = pendingBytes + extra.length;
    discarding = true;
    pending = [];
    pendingBytes = 0;
  };

  try {
    while (true) {
      if (options.signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) break;
      if (!discarding && pendingBytes === 0) {
        const whole = wholeLine(value, maxLineBytes, decoder);
        if (whole !== undefined) {
          yield { kind: "line", text: whole };
          continue;
        }
      }
      let start = 0;
      while (start < value.length) {
        const newline = value.indexOf(NEWLINE, start);
        const piece = value.subarray(start, newline === -1 ? value.length : newline);
        if (discarding) discarded += piece.length;
        else if (pendingBytes + piece.length > maxLineBytes) startDiscarding(piece);
        // `slice`, not `subarray`: a plain stream may reuse its chunk buffers.
        else if (newline === -1) {
          pending.push(piece.slice());
          pendingBytes += piece.length;
        }
        if (newline === -1) break;
        if (discarding) {
          discarding = false;
          yield { kind: "oversize", bytes: discarded, prefix };
        } else {
          yield { kind: "line", text: decodeLine(piece) };
        }
        start = newline + 1;
      }
    }
    if (discarding) yield { kind: "oversize", bytes: discarded, prefix };
    else if (pendingBytes > 0) yield { kind: "line", text: decodeLine(new Uint8Array(0)) };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/**
 * The text of `chunk` when it is exactly one line of at most `maxLineBytes` and its `\n`
 * (the usual read of a peer that sends a request and waits), else `undefined`. Decoding
 * first and looking for another `\n` in the text is several times faster than scanning
 * the bytes, and exact: byte 10 never occurs inside a multi-byte UTF-8 sequence, and a
 * chunk that ends with it ends on a character boundary.
 */
function wholeLine(
  chunk: Uint8Array,
  maxLineBytes: number,
  decoder: TextDecoder,
): string | undefined {
  let end = chunk.length - 1;
  if (end < 0 || end > maxLineBytes || chunk[end] !== NEWLINE) return undefined;
  if (end > 0 && chunk[end - 1] === CARRIAGE_RETURN) end--;
  const text = decoder.decode(chunk.subarray(0, end));
  return text.includes("\n") ? undefined : text;
}

const ID_AT_START =
  // deno-lint-ignore no-control-regex
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}(?=[\s,}])|"(?:[^"\\\x00-\x1f]){0,128}")/;

/**
 * The `id` of an oversized request when it can be read cheaply and safely from the first
 * bytes (`{"id":…` or `{"jsonrpc":"2.0","id":…`), else `null` (JSON-RPC 2.0 §5: the id
 * could not be determined).
 */
export function peekRequestId(prefix: string): string | number | null {
  const match = ID_AT_START.exec(prefix);
  if (!match) return null;
  const token = match[1];
  return token.startsWith('"') ? JSON.parse(token) as string : Number(token);
}
