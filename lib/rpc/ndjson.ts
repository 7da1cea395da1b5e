import { type ByteSource, type LineRead, readLines } from "../core/mod.ts";

/** 1 MiB: the largest line (UTF-8 bytes, newline excluded) either side accepts (MCP spec §3). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** One framed line, or the report that a line was too long and was discarded unread. */
export type NdjsonLine = Extract<LineRead, { kind: "line" | "oversize" }>;

/**
 * Splits a byte stream into NDJSON lines with core's `readLines` (`\n`, an optional `\r`
 * before it is dropped): a line longer than `maxLineBytes` (default `MAX_LINE_BYTES`) is
 * never buffered whole, and one `oversize` item reports it.
 */
export function readNdjsonLines(
  stream: ReadableStream<Uint8Array> | ByteSource,
  options: { maxLineBytes?: number; signal?: AbortSignal } = {},
): AsyncGenerator<NdjsonLine> {
  return readLines(stream, {
    maxLineBytes: options.maxLineBytes ?? MAX_LINE_BYTES,
    signal: options.signal,
  }) as AsyncGenerator<NdjsonLine>;
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
