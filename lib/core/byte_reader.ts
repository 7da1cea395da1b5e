/** Bytes read at most per read by `byteReader`: one buffer per stream, reused. */
export const BYTE_READER_BUFFER_BYTES = 16 * 1024;

/** Reads a byte stream chunk by chunk. */
export interface ByteReader {
  /**
   * The next chunk, or done at the end of the stream. A chunk is the caller's to keep,
   * unless the reader was made with `lend`: then it is valid until the next `read`.
   */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Cancels the stream; a pending read resolves as done. */
  cancel(reason?: unknown): Promise<void>;
  /** Lets go of the stream without cancelling it. */
  releaseLock(): void;
}

/** Options of {@linkcode byteReader}. */
export interface ByteReaderOptions {
  /** The reused buffer's size (default `BYTE_READER_BUFFER_BYTES`). */
  bufferBytes?: number;
  /**
   * Hand out views of the reused buffer instead of copies: each chunk is overwritten by
   * the next read. For a caller that is done with a chunk before it reads again (a line
   * splitter that copies what it keeps), this saves a copy and an allocation per read.
   */
  lend?: boolean;
}

/**
 * Something that reads into a buffer it is given, as `Deno.stdin`, `Deno.FsFile` and
 * `Deno.Conn` do: the number of bytes read, or `null` at the end. Reading one needs no
 * stream, and Deno 2.9 loads its streams implementation on first use (measured with
 * callgrind: a quarter of a bare start), which a validator child or a one-shot command
 * need not pay.
 */
export interface ByteSource {
  read(buffer: Uint8Array): Promise<number | null>;
}

/** True for a `ByteSource` (anything with `read(buffer)`) rather than a stream. */
export function isByteSource(value: ReadableStream<Uint8Array> | ByteSource): value is ByteSource {
  // Not `instanceof ReadableStream`: naming that global loads Deno's streams.
  return typeof (value as Partial<ByteSource>).read === "function";
}

/**
 * A reader of `stream` that reads into one reused buffer where the stream is a byte
 * stream (fetch bodies, files, sockets and stdin are). A plain reader gets a fresh 64 KiB
 * buffer from the runtime for every read however few bytes arrive: at thousands of small
 * reads a second (token streams, NDJSON requests) that is hundreds of MB/s of external
 * memory, which V8 answers with a full collection every ~100 ms. Each chunk returned is a
 * copy of the bytes read (or, with `lend`, a view valid until the next read), so nothing
 * handed out is overwritten behind the caller's back. A stream that is not a byte stream
 * is read plainly.
 */
export function byteReader(
  stream: ReadableStream<Uint8Array> | ByteSource,
  { bufferBytes = BYTE_READER_BUFFER_BYTES, lend = false }: ByteReaderOptions = {},
): ByteReader {
  if (isByteSource(stream)) return sourceReader(stream, bufferBytes, lend);
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
      return { done: false, value: lend ? step.value : step.value.slice() };
    },
    cancel: (reason) => byob.cancel(reason),
    releaseLock: () => byob.releaseLock(),
  };
}

const DONE = Object.freeze({ done: true, value: undefined } as const);

/**
 * A `ByteReader` over a `ByteSource`, one reused buffer. `cancel` ends it at once: a read
 * still pending resolves as done (what it brings later is dropped); closing the source is
 * its owner's business. Each read settles its own promise: racing every read against one
 * long-lived "cancelled" promise would leave a reaction on it per read, for as long as
 * the reader lives.
 */
function sourceReader(source: ByteSource, bufferBytes: number, lend: boolean): ByteReader {
  const buffer = new Uint8Array(bufferBytes);
  let cancelled = false;
  let endPending: (() => void) | undefined;
  return {
    read() {
      if (cancelled) return Promise.resolve(DONE);
      return new Promise((resolve, reject) => {
        endPending = () => resolve(DONE);
        source.read(buffer).then((count) => {
          endPending = undefined;
          if (count === null || cancelled) return resolve(DONE);
          const value = lend ? buffer.subarray(0, count) : buffer.slice(0, count);
          resolve({ done: false, value });
        }, (error) => {
          endPending = undefined;
          reject(error);
        });
      });
    },
    cancel() {
      cancelled = true;
      endPending?.();
      return Promise.resolve();
    },
    releaseLock() {},
  };
}
