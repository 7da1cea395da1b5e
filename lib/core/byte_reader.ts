/** Bytes read at most per read by `byteReader`: one buffer per stream, reused. */
export const BYTE_READER_BUFFER_BYTES = 16 * 1024;

/** Reads a byte stream chunk by chunk; each chunk is the caller's to keep. */
export interface ByteReader {
  /** The next chunk (a copy of just the bytes read), or done at the end of the stream. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Cancels the stream; a pending read resolves as done. */
  cancel(reason?: unknown): Promise<void>;
  /** Lets go of the stream without cancelling it. */
  releaseLock(): void;
}

/**
 * A reader of `stream` that reads into one reused buffer where the stream is a byte
 * stream (fetch bodies, files, sockets and stdin are). A plain reader gets a fresh 64 KiB
 * buffer from the runtime for every read however few bytes arrive: at thousands of small
 * reads a second (token streams, NDJSON requests) that is hundreds of MB/s of external
 * memory, which V8 answers with a full collection every ~100 ms. Each chunk returned is a
 * copy of the bytes read, so nothing handed out is overwritten by the next read. A stream
 * that is not a byte stream is read plainly.
 */
export function byteReader(
  stream: ReadableStream<Uint8Array>,
  bufferBytes = BYTE_READER_BUFFER_BYTES,
): ByteReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch { // a plain ReadableStream of Uint8Array chunks
    const reader = stream.getReader();
    return {
      read: () => reader.read(),
      cancel: (reason) => reader.cancel(reason),
      releaseLock: () => reader.releaseLock(),
    };
  }
  let buffer = new Uint8Array(bufferBytes);
  return {
    async read() {
      const step = await byob.read(buffer);
      // The read transferred the buffer: what comes back is the same memory, reused.
      if (step.value) buffer = new Uint8Array(step.value.buffer);
      if (step.done) return { done: true, value: undefined };
      return { done: false, value: step.value.slice() };
    },
    cancel: (reason) => byob.cancel(reason),
    releaseLock: () => byob.releaseLock(),
  };
}
