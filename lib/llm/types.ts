/** The provider-neutral model interface every LLM caller codes against. */

import { PROVIDERS } from "../core/mod.ts";

/** The providers a user can name: core's list (see `PROVIDERS` there), this layer's names. */
export { PROVIDERS };

/** Which wire format (and which settings) a model uses; `mock` is for tests and demos. */
export type ProviderName = typeof PROVIDERS[number] | "mock";

/**
 * Why a call failed. The first six are the Labs spec's taxonomy; `bad_request` is ours:
 * the request itself was refused (over the 256 KiB cap before sending, no prompt, or a
 * 4xx other than 401/403/408/429). Only `rate_limited` (unless quota is exhausted),
 * `server_error`, `network_error` and `timeout` are retried.
 */
export type FailureReason =
  | "auth_error"
  | "rate_limited"
  | "timeout"
  | "network_error"
  | "bad_response"
  | "server_error"
  | "bad_request";

/** One turn of a conversation. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/**
 * Client-side time limits for one HTTP attempt, in milliseconds. `connectMs` is measured
 * until the response headers arrive (fetch exposes no separate connect phase); `readMs`
 * is the longest allowed gap between two body chunks; `totalMs` bounds the whole attempt.
 */
export interface Timeouts {
  connectMs: number;
  readMs: number;
  totalMs: number;
}

/** One generation call. `prompt` is appended as the last user message. */
export interface GenerateRequest {
  prompt?: string;
  system?: string;
  messages?: ChatMessage[];
  /** Ask for a JSON answer matching this schema; the result then carries `json`. */
  jsonSchema?: Record<string, unknown>;
  /** Name of the schema on the wire (OpenAI `json_schema.name`, Anthropic tool name). */
  schemaName?: string;
  /**
   * Checks a parsed JSON answer instead of the schema itself (compiled by `lib/schema`);
   * returns one message per problem, empty when valid.
   */
  validateJson?: (value: unknown) => readonly string[];
  seed?: number;
  temperature?: number;
  maxTokens?: number;
  timeouts?: Partial<Timeouts>;
  traceId?: string;
  signal?: AbortSignal;
}

/** One streaming call: a generation request and where its text deltas go. */
export interface StreamRequest extends GenerateRequest {
  /**
   * Takes each text delta the moment it is decoded, in the same step as the read that
   * carried it. This is the only channel for deltas: a delta yielded by an async generator
   * would reach the consumer a scheduling turn later, behind every other stream whose data
   * arrived at the same time (see `docs/chat.md` → Numbers).
   */
  onTextDelta: (text: string) => void;
  /**
   * `false`: the result's `raw` is left empty (`rawSize` 0) rather than made of every
   * event's data, which then need not be held until the stream ends. For a caller that
   * never reads it (the chat): a token stream's envelopes are the larger part of what a
   * streaming reply keeps alive. Default true.
   */
  keepRaw?: boolean;
}

/** Token counts as the provider reported them. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** A finished generation with what provenance needs. */
export interface GenerateResult {
  /** The answer text (for a JSON answer, the JSON text). */
  text: string;
  /** Present when `jsonSchema` was requested: parsed and checked against the schema. */
  json?: unknown;
  /** The raw response body (for a stream, the concatenated SSE data). */
  raw: string;
  /** Size of `raw` in bytes (UTF-8). */
  rawSize: number;
  /** core `responseHash(raw)`: SHA-256 of the canonical JSON, 16 hex chars. */
  responseHash: string;
  usage?: Usage;
  model: string;
  provider: ProviderName;
  mode: "mock" | "live";
  endpoint: string;
  apiVersion: string;
  /** HTTP attempts made (1 when the first one succeeded). */
  attempts: number;
  finishReason?: string;
}

/**
 * What `stream()` yields: exactly one `finish`, after every delta went to `onTextDelta`.
 * Text deltas are never yielded; the type leaves no room for them.
 */
export type StreamEvent = { type: "finish"; result: GenerateResult };

/** A model: one provider, one model id, one endpoint. */
export interface LanguageModel {
  readonly provider: ProviderName;
  readonly model: string;
  readonly endpoint: string;
  readonly mode: "mock" | "live";
  /** One answer; throws `ProviderError` after retries. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /**
   * Hands text deltas to `request.onTextDelta`, then yields a `finish` event whose
   * `result.text` equals the concatenated deltas. Failures before the first delta are
   * retried; after it, the partial deltas stay delivered and a `ProviderError` is thrown.
   */
  stream(request: StreamRequest): AsyncIterable<StreamEvent>;
}

/** Everything needed to build a model, resolved once (flags > env > defaults) and frozen. */
export interface ModelConfig {
  readonly provider: ProviderName;
  readonly model: string;
  /** Base URL, without a trailing slash. */
  readonly endpoint: string;
  readonly mode: "mock" | "live";
  /** Only in live mode; from env, never from flags. Pass configs through `redactValue`. */
  readonly apiKey?: string;
  /** `v1`, `v1beta`, the Anthropic version date, or `unknown`. */
  readonly apiVersion: string;
  /** Default temperature (`OPENAI_TEMPERATURE`); a request's own value wins. */
  readonly temperature?: number;
  readonly timeouts: Readonly<Timeouts>;
  /** Retries after the first attempt (spec: 3). */
  readonly maxRetries: number;
  /**
   * The HTTP statuses whose failures are retried (the synthesis spec's `retry_on`); a failure
   * with another status is not, and a 429 whose quota is exhausted never is. Failures without
   * a status (network errors, client timeouts) are retried as usual. Unset: the Labs rule,
   * by reason (429, 5xx, 408).
   */
  readonly retryOn?: readonly number[];
  /** Every secret value to mask in errors, logs and debug output. */
  readonly secrets: readonly string[];
}

/**
 * Decides a mock answer: a function of the request and the 0-based call number, one
 * fixed answer, or a list (call n gets item n). A string is the answer text; any other
 * value is a JSON answer; an `Error` (or a function that throws) is thrown as is.
 */
export type MockScript =
  | ((request: GenerateRequest, call: number) => unknown)
  | readonly unknown[]
  | string
  | number
  | boolean
  | null
  | Error
  | { readonly [key: string]: unknown };
