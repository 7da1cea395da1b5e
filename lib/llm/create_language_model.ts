import {
  backoffDelay,
  type BackoffOptions,
  type Clock,
  errorMessage,
  formatBytes,
  LABS_BACKOFF,
  redactText,
  responseHash,
  systemClock,
  utf8ByteLength,
} from "../core/mod.ts";
import { checkJsonAnswer, withAnswerValidator } from "./_answer.ts";
import { anthropicWire } from "./_anthropic_wire.ts";
import { failureFromResponse } from "./_classify_response.ts";
import { geminiWire } from "./_gemini_wire.ts";
import { CallerAbort, HttpAttempt } from "./_http.ts";
import { openAiWire } from "./_openai_wire.ts";
import type { Wire } from "./_wire.ts";
import { defaultMockAnswer, mockLanguageModel } from "./mock_language_model.ts";
import { type AttemptError, ProviderError } from "./provider_error.ts";
import { definedOnly } from "./resolve_model_config.ts";
import { type SseEvent, SseParser } from "./sse.ts";
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  MockScript,
  ModelConfig,
  ProviderName,
  StreamEvent,
  StreamRequest,
  Timeouts,
  Usage,
} from "./types.ts";

/** Labs spec: request bodies over 256 KiB are refused before sending. */
export const REQUEST_BODY_LIMIT = 256 * 1024;
/**
 * Labs spec: raw responses over 1 MiB are refused while reading, before parsing. In a
 * stream the cap applies to each event and to the answer text the deltas add up to.
 */
export const RESPONSE_BODY_LIMIT = 1024 * 1024;
/**
 * The wire bytes of one stream. Every delta travels in a JSON envelope of a few hundred
 * bytes (OpenAI: ~250 per token), so a 1 MiB answer needs several MiB of events.
 */
const STREAM_BODY_LIMIT = 8 * RESPONSE_BODY_LIMIT;
/** Error bodies are only read this far: enough for the message and retry hints. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** The outside world a model touches, injectable for tests. */
export interface LanguageModelDeps {
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Sleeps between retries and dates `retry-after`; defaults to the system clock. */
  clock?: Clock;
  /** Jitter source for backoff; defaults to `Math.random`. */
  random?: () => number;
  /** Receives one debug line per attempt, already redacted. */
  log?: (line: string) => void;
  /** The answers in mock mode (see `mockLanguageModel`); default: built from the schema. */
  mock?: MockScript;
  /** Delays between retries; default the Labs spec's (`LABS_BACKOFF`). */
  backoff?: BackoffOptions;
}

const WIRES: Readonly<Record<Exclude<ProviderName, "mock">, Wire>> = {
  openai: openAiWire,
  "openai-compatible": openAiWire,
  gemini: geminiWire,
  anthropic: anthropicWire,
};

/**
 * The model a config describes. In mock mode (the default) it is a `mockLanguageModel`
 * that keeps the provider's name and answers from `deps.mock`; in live mode it speaks
 * the provider's wire format over `deps.fetch` with the Labs caps, timeouts and retries.
 */
export function createLanguageModel(
  config: ModelConfig,
  deps: LanguageModelDeps = {},
): LanguageModel {
  if (config.mode === "mock" || config.provider === "mock") {
    return mockLanguageModel(deps.mock ?? defaultMockAnswer, {
      provider: config.provider,
      model: config.model,
      endpoint: redactText(config.endpoint, config.secrets),
      apiVersion: config.apiVersion,
    });
  }
  return new HttpLanguageModel(config, deps);
}

interface Prepared {
  url: string;
  init: RequestInit;
  timeouts: Timeouts;
}

class HttpLanguageModel implements LanguageModel {
  readonly provider: ProviderName;
  readonly model: string;
  readonly endpoint: string;
  readonly mode = "live" as const;
  readonly #config: ModelConfig;
  readonly #wire: Wire;
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #backoff: Readonly<BackoffOptions>;
  readonly #log?: (line: string) => void;
  readonly #secrets: string[];

  constructor(config: ModelConfig, deps: LanguageModelDeps) {
    this.#config = config;
    this.#secrets = [...config.secrets];
    if (config.apiKey) this.#secrets.push(config.apiKey);
    this.provider = config.provider;
    this.model = config.model;
    // Shown in results and provenance: masked like everything else that leaves the layer.
    this.endpoint = this.#redact(config.endpoint);
    this.#wire = WIRES[config.provider as Exclude<ProviderName, "mock">];
    this.#fetch = deps.fetch ?? fetch;
    this.#clock = deps.clock ?? systemClock;
    this.#random = deps.random ?? Math.random;
    this.#backoff = deps.backoff ?? LABS_BACKOFF;
    this.#log = deps.log;
  }

  #redact = (text: string): string => redactText(text, this.#secrets);

  #debug(line: string): void {
    this.#log?.(this.#redact(line));
  }

  #terminal(error: ProviderError, attempts: number, attemptErrors: AttemptError[]): ProviderError {
    return new ProviderError(error.reason, this.#redact(error.detail), {
      status: error.status,
      isRetryable: error.isRetryable,
      retryAfterMs: error.retryAfterMs,
      attempts,
      attemptErrors: attemptErrors.map((entry) => ({ ...entry })),
      provider: this.provider,
      model: this.model,
      endpoint: this.endpoint,
    });
  }

  #prepare(request: GenerateRequest, stream: boolean): Prepared {
    let wireRequest;
    try {
      wireRequest = this.#wire.buildRequest(this.#config, request, stream);
    } catch (error) {
      if (error instanceof ProviderError) throw this.#terminal(error, 0, []);
      throw error;
    }
    const body = JSON.stringify(wireRequest.body);
    const size = utf8ByteLength(body);
    if (size > REQUEST_BODY_LIMIT) {
      throw this.#terminal(
        new ProviderError(
          "bad_request",
          `Request body is over the ${formatBytes(REQUEST_BODY_LIMIT)} cap: ${size} bytes`,
        ),
        0,
        [],
      );
    }
    return {
      url: wireRequest.url,
      init: { method: "POST", headers: wireRequest.headers, body },
      timeouts: { ...this.#config.timeouts, ...definedOnly(request.timeouts) },
    };
  }

  /**
   * Decides after a failed attempt: returns the delay before the next one, or throws the
   * terminal error. Spec: at most `maxRetries` retries, never for auth_error or
   * bad_response; the server's hint (capped at 5 s) wins over backoff.
   */
  #afterFailure(
    thrown: unknown,
    attempt: number,
    attemptErrors: AttemptError[],
    retryAllowed: boolean,
    traceId?: string,
  ): number {
    if (thrown instanceof CallerAbort) throw thrown.reason;
    if (!(thrown instanceof ProviderError)) throw thrown;
    const record: AttemptError = {
      attempt,
      reason: thrown.reason,
      detail: this.#redact(thrown.detail),
    };
    if (thrown.status !== undefined) record.status = thrown.status;
    if (thrown.retryAfterMs !== undefined) record.retryAfterMs = thrown.retryAfterMs;
    attemptErrors.push(record);
    const trace = traceId ? ` trace=${traceId}` : "";
    const status = thrown.status === undefined ? "" : ` HTTP ${thrown.status}`;
    const retry = retryAllowed && this.#retryable(thrown) && attempt <= this.#config.maxRetries;
    if (!retry) {
      this.#debug(
        `llm ${this.provider}${trace} attempt ${attempt} failed:${status} ${thrown.reason}; giving up`,
      );
      throw this.#terminal(thrown, attempt, attemptErrors);
    }
    const delay = thrown.retryAfterMs !== undefined
      ? Math.min(thrown.retryAfterMs, this.#backoff.capMs)
      : backoffDelay(attempt - 1, { ...this.#backoff, random: this.#random });
    record.delayMs = delay;
    this.#debug(
      `llm ${this.provider}${trace} attempt ${attempt} failed:${status} ${thrown.reason}; retrying in ${delay} ms`,
    );
    return delay;
  }

  /** Whether a failure may be retried: by reason, or by status where `retryOn` lists them. */
  #retryable(thrown: ProviderError): boolean {
    const retryOn = this.#config.retryOn;
    if (retryOn === undefined || thrown.status === undefined) return thrown.isRetryable;
    const quotaExhausted = thrown.reason === "rate_limited" && !thrown.isRetryable;
    return retryOn.includes(thrown.status) && !quotaExhausted;
  }

  #result(
    request: GenerateRequest,
    fields: { text: string; json: unknown; raw: string; usage?: Usage; finishReason?: string },
    attempts: number,
  ): GenerateResult {
    let hash: string | undefined;
    const result: GenerateResult = {
      text: fields.text,
      raw: fields.raw,
      rawSize: utf8ByteLength(fields.raw),
      // Hashed on first read: a chat reply never reads it, and a stream's raw text is not
      // JSON, so hashing it costs a failed parse on top of the digest.
      get responseHash() {
        return hash ??= responseHash(fields.raw);
      },
      model: this.model,
      provider: this.provider,
      mode: "live",
      endpoint: this.endpoint,
      apiVersion: this.#config.apiVersion,
      attempts,
    };
    if (request.jsonSchema) result.json = fields.json;
    if (fields.usage) result.usage = fields.usage;
    if (fields.finishReason !== undefined) result.finishReason = fields.finishReason;
    return result;
  }

  async #failedStatus(attempt: HttpAttempt, response: Response): Promise<ProviderError> {
    const text = await attempt.text(response, ERROR_BODY_LIMIT, { truncate: true }).catch(() => "");
    return failureFromResponse(response, text, { now: this.#clock.now(), redact: this.#redact });
  }

  async generate(asked: GenerateRequest): Promise<GenerateResult> {
    const request = await withAnswerValidator(asked);
    const prepared = this.#prepare(request, false);
    const attemptErrors: AttemptError[] = [];
    for (let attempt = 1;; attempt++) {
      this.#debug(`llm ${this.provider} POST ${prepared.url} attempt ${attempt}`);
      const http = new HttpAttempt(prepared.timeouts, request.signal, this.#redact);
      let delay: number;
      try {
        const response = await http.send(this.#fetch, prepared.url, prepared.init);
        if (!response.ok) throw await this.#failedStatus(http, response);
        const raw = await http.text(response, RESPONSE_BODY_LIMIT);
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch (error) {
          throw new ProviderError(
            "bad_response",
            `Response is not valid JSON: ${errorMessage(error)}`,
            { status: response.status },
          );
        }
        const answer = this.#wire.parseAnswer(body, request);
        const json = checkJsonAnswer(
          request,
          answer.text,
          answer.json !== undefined ? { value: answer.json } : undefined,
        );
        return this.#result(request, { ...answer, json, raw }, attempt);
      } catch (thrown) {
        delay = this.#afterFailure(thrown, attempt, attemptErrors, true, request.traceId);
      } finally {
        http.dispose();
      }
      await this.#clock.sleep(delay, request.signal);
    }
  }

  async *stream(asked: StreamRequest): AsyncGenerator<StreamEvent> {
    const request = await withAnswerValidator(asked);
    const prepared = this.#prepare(request, true);
    const attemptErrors: AttemptError[] = [];
    for (let attempt = 1;; attempt++) {
      this.#debug(`llm ${this.provider} POST ${prepared.url} (stream) attempt ${attempt}`);
      const http = new HttpAttempt(prepared.timeouts, request.signal, this.#redact);
      const progress = { delivered: 0 };
      let result: GenerateResult | undefined;
      let delay = 0;
      try {
        result = await this.#streamAttempt(http, prepared, request, attempt, progress);
      } catch (thrown) {
        const error = afterDeltas(thrown, progress.delivered);
        const retry = progress.delivered === 0;
        delay = this.#afterFailure(error, attempt, attemptErrors, retry, request.traceId);
      } finally {
        http.dispose();
      }
      if (result) {
        yield { type: "finish", result };
        return;
      }
      await this.#clock.sleep(delay, request.signal);
    }
  }

  /** Sends a streaming request; resolves to a response that really is an event stream. */
  async #openStream(http: HttpAttempt, prepared: Prepared): Promise<Response> {
    const response = await http.send(this.#fetch, prepared.url, prepared.init);
    if (!response.ok) throw await this.#failedStatus(http, response);
    const type = response.headers.get("content-type") ?? "";
    if (/json/i.test(type)) {
      // A server that ignored `stream: true`: not something a retry would change.
      const body = await http.text(response, ERROR_BODY_LIMIT, { truncate: true });
      throw new ProviderError(
        "bad_response",
        `Expected an event stream, got ${type}: ${body.replace(/\s+/g, " ").slice(0, 200)}`,
        { status: response.status },
      );
    }
    return response;
  }

  /** One attempt: text deltas to `onTextDelta` as they arrive, then the finished result. */
  async #streamAttempt(
    http: HttpAttempt,
    prepared: Prepared,
    request: StreamRequest,
    attempt: number,
    progress: { delivered: number },
  ): Promise<GenerateResult> {
    const response = await this.#openStream(http, prepared);
    const status = response.status;
    const state = this.#wire.newStreamState();
    // The answer's pieces, joined once at the end: one pointer each while the stream runs,
    // where adding each to a string would keep a 32-byte cons cell per delta alive.
    const answer = { pieces: [] as string[], bytes: 0, raw: [] as string[] };
    const keepRaw = request.keepRaw !== false;
    const deliver = (delta: string) => {
      answer.bytes += utf8ByteLength(delta);
      if (answer.bytes > RESPONSE_BODY_LIMIT) {
        throw new ProviderError(
          "bad_response",
          `Streamed answer is over the ${formatBytes(RESPONSE_BODY_LIMIT)} cap`,
          { status },
        );
      }
      answer.pieces.push(delta);
      progress.delivered++;
      request.onTextDelta(delta);
    };
    const take = (event: SseEvent, cut: boolean): boolean => {
      if (keepRaw) answer.raw.push(event.data);
      return this.#streamStep(state, event, cut, request, status, deliver);
    };
    // In order, one at a time: deltas before an error event in the same read still arrive.
    const events = new SseReading(status, take);
    if (!await http.readBody(response, STREAM_BODY_LIMIT, events.chunk)) events.end();
    if (!state.complete) {
      throw new ProviderError("network_error", "Stream ended before the provider's end marker", {
        status,
      });
    }
    const text = answer.pieces.join("");
    let json: unknown;
    if (request.jsonSchema) {
      const parsed = checkJsonAnswer(request, text);
      json = this.#wire.unwrapStreamJson ? this.#wire.unwrapStreamJson(request, parsed) : parsed;
    }
    const { usage, finishReason } = state;
    const raw = answer.raw.join("\n");
    return this.#result(request, { text, json, raw, usage, finishReason }, attempt);
  }

  /**
   * The wire's reading of one event, its deltas handed to `deliver`; true at the provider's
   * end marker. A broken event the stream ended inside (`cut`) is a cut, not a bad response,
   * and none of its deltas is delivered.
   */
  #streamStep(
    state: ReturnType<Wire["newStreamState"]>,
    event: SseEvent,
    cut: boolean,
    request: GenerateRequest,
    status: number,
    deliver: (delta: string) => void,
  ): boolean {
    if (!cut) return this.#wire.onEvent(state, event, request, deliver);
    const deltas: string[] = [];
    let done: boolean;
    try {
      done = this.#wire.onEvent(state, event, request, (delta) => deltas.push(delta));
    } catch (error) {
      if (error instanceof ProviderError && error.reason === "bad_response") {
        throw new ProviderError("network_error", "Stream ended in the middle of an event", {
          status,
        });
      }
      throw error;
    }
    for (const delta of deltas) deliver(delta);
    return done;
  }
}

/**
 * Hands the server-sent events of a body to `take`, in order, as each read completes them
 * (`chunk` is `readBody`'s callback: in the same step as the read, where a token stream is
 * thousands of reads a second); `cut` marks one the stream ended inside (no blank line
 * after it). Asks to stop reading once `take` returns true. An event growing past the
 * response cap is refused while it grows.
 */
class SseReading {
  readonly #parser = new SseParser();
  readonly #decoder = new TextDecoder();
  readonly #status: number;
  readonly #take: (event: SseEvent, cut: boolean) => boolean;

  constructor(status: number, take: (event: SseEvent, cut: boolean) => boolean) {
    this.#status = status;
    this.#take = take;
  }

  /** One chunk of the body; true once `take` asked to stop. */
  chunk = (bytes: Uint8Array): boolean => {
    const text = this.#decoder.decode(bytes, { stream: true });
    if (this.#takeAll(this.#parser.push(text), false)) return true;
    if (this.#parser.pending > RESPONSE_BODY_LIMIT) throw eventTooLarge(this.#status);
    return false;
  };

  /** The body ended (unless `take` stopped it): what the decoder and the parser held. */
  end(): void {
    if (this.#takeAll(this.#parser.push(this.#decoder.decode()), false)) return;
    this.#takeAll(this.#parser.end(), true);
  }

  #takeAll(events: readonly SseEvent[], cut: boolean): boolean {
    for (let i = 0; i < events.length; i++) {
      if (events[i].data.length > RESPONSE_BODY_LIMIT) throw eventTooLarge(this.#status);
      if (this.#take(events[i], cut)) return true;
    }
    return false;
  }
}

function eventTooLarge(status: number): ProviderError {
  return new ProviderError(
    "bad_response",
    `Stream event is over the ${formatBytes(RESPONSE_BODY_LIMIT)} cap`,
    { status },
  );
}

/** Chat spec B2: after some text was delivered, the typed error says how much. */
function afterDeltas(thrown: unknown, delivered: number): unknown {
  if (delivered === 0 || !(thrown instanceof ProviderError)) return thrown;
  return new ProviderError(thrown.reason, `${thrown.detail} (after ${delivered} text deltas)`, {
    status: thrown.status,
    isRetryable: thrown.isRetryable,
    retryAfterMs: thrown.retryAfterMs,
  });
}
