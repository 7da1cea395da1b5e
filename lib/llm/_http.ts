/**
 * One HTTP attempt under the Labs spec's limits: a connect timer (until response
 * headers), a read timer (longest gap between body chunks), a total timer, and a byte
 * cap checked against Content-Length first and then counted while reading.
 *
 * The read timer is one watchdog per body rather than a timer set and cleared per read:
 * a token stream is thousands of reads a second, and setting and clearing a timer costs
 * about 3 µs each time (scripts/bench_llm.ts). The watchdog notes when the read in flight began and, when it fires, either
 * expires (that read has waited `readMs`) or sleeps again for what is left.
 */
import {
  type ByteReader,
  byteReader,
  errorMessage,
  formatBytes,
  systemTimers,
  type Timers,
} from "../core/mod.ts";
import { ProviderError } from "./provider_error.ts";
import type { Timeouts } from "./types.ts";

type TimeoutKind = "connect" | "read" | "total";

/** The reason an attempt's signal is aborted when it is over: made once, not per attempt. */
const DISPOSED = new DOMException("The HTTP attempt is over", "AbortError");

/** Thrown when the caller's own signal aborted the attempt; never retried. */
export class CallerAbort {
  constructor(readonly reason: unknown) {}
}

export class HttpAttempt {
  readonly #controller = new AbortController();
  readonly #timeouts: Timeouts;
  readonly #callerSignal?: AbortSignal;
  readonly #redact: (text: string) => string;
  #timedOut?: TimeoutKind;
  readonly #timers: Timers;
  #connectTimer?: unknown;
  #readTimer?: unknown;
  /** When the read in flight began; undefined while the consumer holds the body. */
  #readSince?: number;
  readonly #now: () => number;
  #totalTimer?: unknown;
  #onCallerAbort = () => this.#controller.abort(this.#callerSignal?.reason);
  #reader?: ByteReader;
  /**
   * Rejects when the attempt is aborted (a timer or the caller). Raced against fetch, so
   * the limits hold even for a fetch that ignores its signal; a body read is ended by
   * cancelling the reader instead (see `#stop`).
   */
  readonly #aborted: Promise<never>;

  constructor(
    timeouts: Timeouts,
    callerSignal: AbortSignal | undefined,
    redact: (text: string) => string,
    timers: Timers = systemTimers,
    now: () => number = () => performance.now(),
  ) {
    this.#timers = timers;
    this.#now = now;
    this.#timeouts = timeouts;
    this.#callerSignal = callerSignal;
    this.#redact = redact;
    callerSignal?.addEventListener("abort", this.#onCallerAbort, { once: true });
    const signal = this.#controller.signal;
    this.#aborted = new Promise<never>((_resolve, reject) => {
      signal.addEventListener("abort", () => {
        this.#stop();
        reject(signal.reason);
      }, { once: true });
    });
    this.#aborted.catch(() => {}); // raced in send(); never an unhandled rejection
  }

  #expire(kind: TimeoutKind) {
    if (this.#timedOut) return;
    this.#timedOut = kind;
    this.#controller.abort(new DOMException(`${kind} timeout`, "TimeoutError"));
  }

  /** Arms the read watchdog to look again in `ms`. */
  #watchRead(ms: number) {
    this.#readTimer = this.#timers.set(() => {
      const since = this.#readSince;
      const waited = since === undefined ? 0 : this.#now() - since;
      if (waited >= this.#timeouts.readMs) this.#expire("read");
      else this.#watchRead(Math.max(1, this.#timeouts.readMs - waited));
    }, ms);
  }

  /** Ends a pending body read, even of a body that ignores the abort signal. */
  #stop = () => this.#reader?.cancel().catch(() => {});

  /** Maps whatever fetch or a body read threw to a `ProviderError` (or a `CallerAbort`). */
  #failure(error: unknown): ProviderError | CallerAbort {
    if (error instanceof ProviderError) return error;
    if (this.#timedOut) {
      const limits = {
        connect: `No response headers within ${this.#timeouts.connectMs} ms`,
        read: `No response data for ${this.#timeouts.readMs} ms`,
        total: `Request took longer than ${this.#timeouts.totalMs} ms`,
      };
      return new ProviderError("timeout", limits[this.#timedOut], { cause: error });
    }
    if (this.#callerSignal?.aborted) return new CallerAbort(this.#callerSignal.reason);
    const cause = error instanceof Error && error.cause ? `: ${errorMessage(error.cause)}` : "";
    return new ProviderError(
      "network_error",
      this.#redact(`Connection failed: ${errorMessage(error)}${cause}`),
      { cause: error },
    );
  }

  /** Sends the request; resolves when the response headers have arrived. */
  async send(fetcher: typeof fetch, url: string, init: RequestInit): Promise<Response> {
    if (this.#callerSignal?.aborted) throw new CallerAbort(this.#callerSignal.reason);
    this.#totalTimer = this.#timers.set(() => this.#expire("total"), this.#timeouts.totalMs);
    this.#connectTimer = this.#timers.set(
      () => this.#expire("connect"),
      this.#timeouts.connectMs,
    );
    try {
      if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
      return await Promise.race([
        fetcher(url, { ...init, signal: this.#controller.signal }),
        this.#aborted,
      ]);
    } catch (error) {
      throw this.#failure(error);
    } finally {
      this.#timers.clear(this.#connectTimer);
    }
  }

  /**
   * The body's chunks, at most `limit` bytes in all: a declared Content-Length over the
   * limit fails before reading, and counting stops the read as soon as it is passed.
   * With `truncate`, reading just stops at the limit (for error bodies) instead of failing.
   */
  async *chunks(
    response: Response,
    limit: number,
    options: { truncate?: boolean } = {},
  ): AsyncGenerator<Uint8Array> {
    const declared = Number(response.headers.get("content-length"));
    if (!options.truncate && Number.isFinite(declared) && declared > limit) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderError(
        "bad_response",
        `Response body is over the ${formatBytes(limit)} cap: Content-Length ${declared}`,
        { status: response.status },
      );
    }
    if (!response.body) return;
    // One reused read buffer: a token stream is thousands of tiny reads a second.
    const reader = byteReader(response.body);
    this.#reader = reader;
    let total = 0;
    this.#watchRead(this.#timeouts.readMs);
    try {
      while (true) {
        this.#readSince = this.#now();
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (error) {
          throw this.#failure(error);
        } finally {
          this.#readSince = undefined;
        }
        // A read ended by `#stop` looks like the end of the body: report why it stopped.
        if (this.#controller.signal.aborted) throw this.#failure(this.#controller.signal.reason);
        if (step.done) return;
        total += step.value.byteLength;
        if (total > limit) {
          if (options.truncate) {
            yield step.value.subarray(0, step.value.byteLength - (total - limit));
            return;
          }
          throw new ProviderError(
            "bad_response",
            `Response body is over the ${formatBytes(limit)} cap: more than ${limit} bytes`,
            { status: response.status },
          );
        }
        yield step.value;
      }
    } finally {
      this.#timers.clear(this.#readTimer);
      this.#reader = undefined;
      await reader.cancel().catch(() => {});
    }
  }

  /** The whole body as text, under the cap. */
  async text(
    response: Response,
    limit: number,
    options: { truncate?: boolean } = {},
  ): Promise<string> {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of this.chunks(response, limit, options)) {
      text += decoder.decode(chunk, { stream: true });
    }
    return text + decoder.decode();
  }

  /** Clears every timer and releases the caller's signal; cancels an unread body. */
  dispose(): void {
    this.#timers.clear(this.#connectTimer);
    this.#timers.clear(this.#readTimer);
    this.#timers.clear(this.#totalTimer);
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
    this.#reader?.cancel().catch(() => {});
    if (!this.#controller.signal.aborted) this.#controller.abort(DISPOSED);
  }
}
