/**
 * One HTTP attempt under the Labs spec's limits: a connect limit (until response
 * headers), a read limit (longest gap between body chunks), a total limit, and a byte
 * cap checked against Content-Length first and then counted while reading.
 *
 * The three limits share one watchdog timer per attempt rather than a timer each, and the
 * read limit is never a timer set and cleared per read: a token stream is thousands of
 * reads a second, setting and clearing a timer costs about 3 µs each time
 * (scripts/bench_llm.ts), and a chat gateway has hundreds of replies in flight. Each limit
 * is a deadline: the connect deadline until the headers arrive, the total deadline, and
 * the read deadline (when the read in flight began, plus `readMs`) only while a read is
 * in flight. The watchdog sleeps until the earliest of them; when it wakes it expires the
 * attempt if one has passed, or else sleeps again for what is left. A read only notes
 * when it began; it re-arms the watchdog only when the watchdog would wake after that
 * read's deadline, as when it was set while no read was in flight.
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
  readonly #now: () => number;
  /** The one pending watchdog timer, if any, and when (by `#now`) it wakes. */
  #watchdog?: unknown;
  #wakeAt = Infinity;
  /** The connect deadline; undefined once the wait for headers is over. */
  #connectBy?: number;
  #totalBy = Infinity;
  /** When the read in flight began; undefined while no read is in flight. */
  #readSince?: number;
  #onCallerAbort = () => this.#abort(this.#callerSignal?.reason);
  #reader?: ByteReader;
  /** Aborted (a limit, the caller) or disposed: nothing is watched or waited for any more. */
  #over = false;
  /** The body was read to its end: the fetch has nothing left to abort. */
  #bodyRead = false;
  /**
   * Rejects the `send` in progress: an abort (a limit or the caller) ends it even for a
   * fetch that ignores its signal. A body read is ended by cancelling the reader instead
   * (see `#stop`). Set only while `send` waits, so nothing of it outlives the headers.
   */
  #rejectSend?: (reason: unknown) => void;

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
  }

  /**
   * Ends the attempt: nothing more is watched, waited for or read, then the fetch is
   * aborted through its signal. Called rather than listening on that signal, one listener
   * less per attempt; the work a first listener did runs before the signal's listeners.
   */
  #abort(reason: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#disarm();
    this.#stop();
    this.#rejectSend?.(reason);
    this.#controller.abort(reason);
  }

  #expire(kind: TimeoutKind) {
    if (this.#timedOut) return;
    this.#timedOut = kind;
    this.#abort(new DOMException(`${kind} timeout`, "TimeoutError"));
  }

  /** The earliest deadline still live (Infinity if none). */
  #nextDeadline(): number {
    const read = this.#readSince === undefined ? Infinity : this.#readSince + this.#timeouts.readMs;
    return Math.min(this.#connectBy ?? Infinity, read, this.#totalBy);
  }

  /**
   * The limit that has run out by `now`, if any: the one whose deadline passed first, as
   * separate timers would have fired. The total limit wins a tie, as its timer did when it
   * was set before the others.
   */
  #overdue(now: number): TimeoutKind | undefined {
    const first = this.#nextDeadline();
    if (first > now) return undefined;
    if (first === this.#totalBy) return "total";
    return first === this.#connectBy ? "connect" : "read";
  }

  /** Sets the watchdog for the earliest live deadline, replacing any pending one. */
  #arm(now: number) {
    this.#disarm();
    const deadline = this.#nextDeadline();
    // An attempt that is over has nothing left to watch.
    if (deadline === Infinity || this.#over) return;
    // At least 1 ms, so a deadline due now cannot spin the watchdog.
    this.#wakeAt = Math.max(deadline, now + 1);
    this.#watchdog = this.#timers.set(this.#onWatchdog, this.#wakeAt - now);
  }

  /** Clears the pending watchdog, if any. */
  #disarm() {
    this.#timers.clear(this.#watchdog);
    this.#watchdog = undefined;
    this.#wakeAt = Infinity;
  }

  /** One callback for every wake, so re-arming allocates no closure. */
  #onWatchdog = () => {
    this.#watchdog = undefined;
    this.#wakeAt = Infinity;
    const now = this.#now();
    const kind = this.#overdue(now);
    if (kind) this.#expire(kind);
    else this.#arm(now);
  };

  /** Notes that a body read begins; re-arms only if the watchdog would wake too late. */
  #readBegins() {
    const now = this.#now();
    this.#readSince = now;
    if (now + this.#timeouts.readMs < this.#wakeAt) this.#arm(now);
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
    const now = this.#now();
    this.#totalBy = now + this.#timeouts.totalMs;
    this.#connectBy = now + this.#timeouts.connectMs;
    this.#arm(now);
    try {
      if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
      return await new Promise<Response>((resolve, reject) => {
        this.#rejectSend = reject;
        fetcher(url, { ...init, signal: this.#controller.signal }).then(resolve, reject);
      });
    } catch (error) {
      throw this.#failure(error);
    } finally {
      this.#rejectSend = undefined;
      // The watchdog is left set for the connect deadline: on waking it finds that deadline
      // gone and sleeps until the next. Re-arming here would set a timer for every attempt,
      // even one that is over before the connect deadline.
      this.#connectBy = undefined;
    }
  }

  /**
   * Hands the body's chunks to `take` as each read completes, in the read's own step: no
   * generator and no promise per chunk, where a token stream is thousands of reads a
   * second. At most `limit` bytes in all: a declared Content-Length over the limit fails
   * before reading, and counting stops the read as soon as it is passed; with `truncate`,
   * reading just stops at the limit (for error bodies) instead of failing. A chunk is lent:
   * it is valid until `take` returns. `take` returning true stops the read early; so does
   * a throw, which rejects this. Resolves to whether `take` stopped it.
   */
  async readBody(
    response: Response,
    limit: number,
    take: (chunk: Uint8Array) => boolean | void,
    options: { truncate?: boolean } = {},
  ): Promise<boolean> {
    const over = this.#declaredOver(response, limit, options);
    if (over) {
      await cancelled(response);
      throw over;
    }
    if (!response.body) return false;
    // Nothing is awaited before the first read: its deadline begins in the caller's step.
    const reader = this.#openBody(response.body);
    let total = 0;
    try {
      while (true) {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await this.#beginRead(reader);
        } catch (error) {
          throw this.#readFailed(error);
        }
        const chunk = this.#readDone(step);
        if (!chunk) return false;
        total += chunk.byteLength;
        if (total > limit) {
          return take(this.#withinLimit(chunk, total, limit, options, response)) === true;
        }
        if (take(chunk) === true) return true;
      }
    } finally {
      await this.#closeBody(reader);
    }
  }

  /** The cap's error for a declared Content-Length over `limit` (none with `truncate`). */
  #declaredOver(
    response: Response,
    limit: number,
    options: { truncate?: boolean },
  ): ProviderError | undefined {
    const declared = Number(response.headers.get("content-length"));
    if (options.truncate || !Number.isFinite(declared) || declared <= limit) return undefined;
    return new ProviderError(
      "bad_response",
      `Response body is over the ${formatBytes(limit)} cap: Content-Length ${declared}`,
      { status: response.status },
    );
  }

  /** A reader of the body through one reused buffer: a token stream is thousands of reads. */
  #openBody(body: ReadableStream<Uint8Array>): ByteReader {
    this.#reader = byteReader(body, { lend: true });
    return this.#reader;
  }

  async #closeBody(reader: ByteReader): Promise<void> {
    this.#reader = undefined;
    await reader.cancel().catch(() => {});
  }

  /** Begins one read of the body; `#readDone` or `#readFailed` ends it. */
  #beginRead(reader: ByteReader): Promise<ReadableStreamReadResult<Uint8Array>> {
    this.#readBegins();
    return reader.read();
  }

  /** What a failed read throws. */
  #readFailed(error: unknown): ProviderError | CallerAbort {
    this.#readSince = undefined;
    return this.#failure(error);
  }

  /** A read's chunk, or undefined at the end of the body. */
  #readDone(step: ReadableStreamReadResult<Uint8Array>): Uint8Array | undefined {
    this.#readSince = undefined;
    // A read ended by `#stop` looks like the end of the body: report why it stopped.
    if (this.#controller.signal.aborted) throw this.#failure(this.#controller.signal.reason);
    if (!step.done) return step.value;
    this.#bodyRead = true;
    return undefined;
  }

  /** The part of the chunk within `limit`, which it passes (`truncate`), or the cap's error. */
  #withinLimit(
    chunk: Uint8Array,
    total: number,
    limit: number,
    options: { truncate?: boolean },
    response: Response,
  ): Uint8Array {
    if (options.truncate) return chunk.subarray(0, chunk.byteLength - (total - limit));
    throw new ProviderError(
      "bad_response",
      `Response body is over the ${formatBytes(limit)} cap: more than ${limit} bytes`,
      { status: response.status },
    );
  }

  /** The whole body as text, under the cap. */
  async text(
    response: Response,
    limit: number,
    options: { truncate?: boolean } = {},
  ): Promise<string> {
    const decoder = new TextDecoder();
    let text = "";
    await this.readBody(response, limit, (chunk) => {
      text += decoder.decode(chunk, { stream: true });
    }, options);
    return text + decoder.decode();
  }

  /**
   * Clears the watchdog and releases the caller's signal; cancels an unread body and aborts
   * the fetch, unless its body was read to the end (then aborting it would only dispatch an
   * event to listeners with nothing left to do).
   */
  dispose(): void {
    this.#disarm();
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
    this.#reader?.cancel().catch(() => {});
    if (this.#bodyRead) this.#over = true;
    else this.#abort(DISPOSED);
  }
}

/** Resolves once the response's body (if any) is cancelled, whether or not that failed. */
function cancelled(response: Response): Promise<void> {
  return response.body?.cancel().catch(() => {}) ?? Promise.resolve();
}
