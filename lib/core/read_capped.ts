import { byteReader, type ByteSource } from "./byte_reader.ts";

/**
 * Reads a byte stream (or a `ByteSource` such as an open `Deno.FsFile`) whole, refusing it
 * as soon as it passes `maxBytes`: a size checked up front would not hold for a pipe, a
 * chunked HTTP body or `/dev/zero`. `tooLarge` makes the error thrown; a stream is
 * cancelled first (a source is left to its owner to close).
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array> | ByteSource,
  options: CapOptions,
): Promise<Uint8Array> {
  const { maxBytes, tooLarge } = options;
  const reader = byteReader(stream);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    // Closes the source (a file's stream closes its file) whether it was read to the end
    // or not.
    await reader.cancel().catch(() => {});
  }
  return concatBytes(chunks, total);
}

/** How much a capped read takes, and the error it throws past that. */
export interface CapOptions {
  maxBytes: number;
  tooLarge: () => Error;
}

/** Something read synchronously into a buffer it is given, as an open `Deno.FsFile` is. */
export interface SyncByteSource {
  readSync(buffer: Uint8Array): number | null;
}

/**
 * `readStreamCapped` for a source read synchronously: for a regular file, whose reads
 * return at once. A command that reads its input before anything else runs then skips the
 * first asynchronous file operations of the process (Deno hands each to a pool thread:
 * ~2 ms of a cold `syn validate`). Never for a pipe or a device, which may block forever.
 */
export function readSyncCapped(source: SyncByteSource, options: CapOptions): Uint8Array {
  const { maxBytes, tooLarge } = options;
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const buffer = new Uint8Array(SYNC_CHUNK_BYTES);
    const count = source.readSync(buffer);
    if (count === null) break;
    total += count;
    if (total > maxBytes) throw tooLarge();
    chunks.push(buffer.subarray(0, count));
  }
  return concatBytes(chunks, total);
}

/** Bytes asked for per synchronous read. */
const SYNC_CHUNK_BYTES = 64 * 1024;

/** The chunks as one array of `length` bytes (their total). */
export function concatBytes(parts: readonly Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
