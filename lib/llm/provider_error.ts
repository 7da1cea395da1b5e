import { SynError } from "../core/mod.ts";
import type { FailureReason, ProviderName } from "./types.ts";

/** One failed attempt, as kept in a terminal `ProviderError`. */
export interface AttemptError {
  /** 1-based attempt number. */
  attempt: number;
  reason: FailureReason;
  detail: string;
  status?: number;
  /** The server's retry hint, if it gave one. */
  retryAfterMs?: number;
  /** The wait before the next attempt, when there was one. */
  delayMs?: number;
}

/** Fields of a `ProviderError` besides its reason and detail. */
export interface ProviderErrorOptions {
  status?: number;
  isRetryable?: boolean;
  retryAfterMs?: number;
  attempts?: number;
  attemptErrors?: readonly AttemptError[];
  provider?: ProviderName;
  model?: string;
  endpoint?: string;
  cause?: unknown;
}

const RETRYABLE: ReadonlySet<FailureReason> = new Set([
  "rate_limited",
  "server_error",
  "network_error",
  "timeout",
]);

/**
 * Every failure of an LLM call. `code` equals `reason` (the Labs taxonomy), `detail` is
 * already redacted, and a terminal error carries every attempt's error: it is also the
 * retry error (why it stopped: `isRetryable` false, or `attempts` reached the limit).
 */
export class ProviderError extends SynError {
  readonly reason: FailureReason;
  readonly detail: string;
  readonly status?: number;
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number;
  readonly attempts: number;
  readonly attemptErrors: readonly AttemptError[];
  readonly provider?: ProviderName;

  constructor(reason: FailureReason, detail: string, options: ProviderErrorOptions = {}) {
    const attempts = options.attempts ?? 1;
    const who = options.provider ? `${options.provider} request` : "Provider request";
    const status = options.status === undefined || detail.startsWith(`HTTP ${options.status}`)
      ? ""
      : ` (HTTP ${options.status})`;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    super(reason, `${who} failed with ${reason}${status}${tries}: ${detail}`, {}, {
      cause: options.cause,
    });
    this.name = "ProviderError";
    this.reason = reason;
    this.detail = detail;
    this.status = options.status;
    this.isRetryable = options.isRetryable ?? RETRYABLE.has(reason);
    this.retryAfterMs = options.retryAfterMs;
    this.attempts = attempts;
    this.attemptErrors = options.attemptErrors ?? [];
    this.provider = options.provider;
    Object.assign(this.data, {
      reason,
      detail,
      status: options.status,
      attempts,
      attemptErrors: this.attemptErrors,
      provider: options.provider,
      model: options.model,
      endpoint: options.endpoint,
      retryable: this.isRetryable,
    });
  }

  /** The `failure` object of a Labs `external.jsonl` record. */
  toFailure(): { reason: FailureReason; detail: string; status?: number; attempts: number } {
    return {
      reason: this.reason,
      detail: this.detail,
      status: this.status,
      attempts: this.attempts,
    };
  }
}
