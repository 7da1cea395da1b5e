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
