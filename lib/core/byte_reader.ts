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
function isByteSource(value: ReadableStream<Uint8Array> | ByteSource): value is ByteSource {
  // Not `instanceof ReadableStream`: naming that global loads Deno's streams.
  return typeof (value as Partial<ByteSource>).read === "function";
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
  stream: ReadableStream<Uint8Array> | ByteSource,
  bufferBytes = BYTE_READER_BUFFER_BYTES,
): ByteReader {
  if (isByteSource(stream)) return sourceReader(stream, bufferBytes);
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

/**
 * A `ByteReader` over a `ByteSource`, one reused buffer. `cancel` ends it at once: a read
 * still pending resolves as done (what it brings later is dropped); closing the source is
 * its owner's business.
 */
function sourceReader(source: ByteSource, bufferBytes: number): ByteReader {
  const buffer = new Uint8Array(bufferBytes);
  let cancelled = false;
  let wake = () => {};
  const cancelling = new Promise<null>((resolve) => (wake = () => resolve(null)));
  const done = { done: true, value: undefined } as const;
  return {
    async read() {
      if (cancelled) return done;
      const count = await Promise.race([source.read(buffer), cancelling]);
      if (count === null || cancelled) return done;
      return { done: false, value: buffer.slice(0, count) };
    },
    cancel() {
      cancelled = true;
      wake();
      return Promise.resolve();
    },
    releaseLock() {},
  };
}
