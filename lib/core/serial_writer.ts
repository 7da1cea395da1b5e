/** Writes raw bytes somewhere (a file, a pipe); may throw when the other end is gone. */
export type ByteSink = (bytes: Uint8Array) => Promise<number>;

/** What a `SerialWriter` dropped, for a final count. */
export interface SerialWriterStats {
  written: number;
  dropped: number;
  broken: boolean;
}

/**
 * A writer for a log stream (stderr) that can never hurt its program: writes go out one
 * after another (two lines never interleave), at most `maxQueuedBytes` wait (past that,
 * lines are dropped and counted, so a blocked reader cannot grow memory without bound),
 * and a closed stream (EPIPE, a closed descriptor) stops the writing quietly — the
 * returned promise never rejects, so no caller can leave an unhandled rejection behind.
 */
export class SerialWriter {
  #sink: ByteSink;
  #maxQueued: number;
  #queued = 0;
  #tail: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  readonly stats: SerialWriterStats = { written: 0, dropped: 0, broken: false };

  constructor(sink: ByteSink, options: { maxQueuedBytes?: number } = {}) {
    this.#sink = sink;
    this.#maxQueued = options.maxQueuedBytes ?? 1024 * 1024;
  }

  /** Queues `text`; resolves once it is written, dropped or the stream is gone. */
  write(text: string): Promise<void> {
    if (this.stats.broken) return Promise.resolve();
    const bytes = this.#encoder.encode(text);
    if (this.#queued + bytes.length > this.#maxQueued) {
      this.stats.dropped++;
      return Promise.resolve();
    }
    this.#queued += bytes.length;
    this.#tail = this.#tail.then(async () => {
      try {
        if (!this.stats.broken) await this.#writeAll(bytes);
      } catch {
        this.stats.broken = true;
      } finally {
        this.#queued -= bytes.length;
      }
    });
    return this.#tail;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) offset += await this.#sink(bytes.subarray(offset));
    this.stats.written++;
  }

  /** Bytes queued and not yet written (0 when there is nothing to wait for). */
  get pendingBytes(): number {
    return this.#queued;
  }

  /** Resolves when everything queued so far is written (or dropped). */
  flush(): Promise<void> {
    return this.#tail;
  }
}
