/** Labs spec error taxonomy for an HTTP error response. */
import { ProviderError } from "./provider_error.ts";
import { retryDelayFromResponse } from "./retry_delay_from_response.ts";
import { asRecord } from "./_wire.ts";

function details(error: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(error.details) ? error.details.map(asRecord) : [];
}

/** Gemini answers a bad key with 400 INVALID_ARGUMENT and reason `API_KEY_INVALID`. */
function isInvalidKey(body: unknown, text: string): boolean {
  const error = asRecord(asRecord(body).error);
  if (details(error).some((detail) => detail.reason === "API_KEY_INVALID")) return true;
  return /API_KEY_INVALID|API key not valid/i.test(text);
}

/**
 * A 429 that will not pass by waiting: OpenAI's `insufficient_quota`; Gemini's
 * RESOURCE_EXHAUSTED with a QuotaFailure and no RetryInfo, or a per-day quota.
 */
export function isQuotaExhausted(body: unknown): boolean {
  const error = asRecord(asRecord(body).error);
  if (error.code === "insufficient_quota" || error.type === "insufficient_quota") return true;
  const list = details(error);
  const quotaFailure = list.find((detail) =>
    String(detail["@type"] ?? "").endsWith("QuotaFailure")
  );
  if (!quotaFailure) return false;
  const retryInfo = list.some((detail) => String(detail["@type"] ?? "").endsWith("RetryInfo"));
  const violations = Array.isArray(quotaFailure.violations) ? quotaFailure.violations : [];
  const perDay = violations.some((violation) =>
    /PerDay/i.test(
      JSON.stringify(asRecord(violation).quotaId ?? asRecord(violation).quotaMetric ?? ""),
    )
  );
  return !retryInfo || perDay;
}

function messageOf(body: unknown, text: string): string {
  const error = asRecord(body).error;
  const message = typeof error === "string" ? error : asRecord(error).message;
  const chosen = typeof message === "string" && message ? message : text.trim();
  const oneLine = chosen.replace(/\s+/g, " ");
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}…` : oneLine || "(empty body)";
}

/**
 * The `ProviderError` of one non-2xx response (its status and headers, and its body's
 * `text`); the detail is redacted by `reading.redact`, a retry date read against
 * `reading.now`.
 */
export function failureFromResponse(
  response: { status: number; headers: Headers },
  text: string,
  reading: { now: number; redact: (text: string) => string },
): ProviderError {
  const { status, headers } = response;
  const { now, redact } = reading;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const detail = redact(`HTTP ${status}: ${messageOf(body, text)}`);
  const retryAfterMs = retryDelayFromResponse(headers, body, { now });
  const options = { status, retryAfterMs };
  if (status === 401 || status === 403) return new ProviderError("auth_error", detail, options);
  if (status === 400 && isInvalidKey(body, text)) {
    return new ProviderError("auth_error", detail, options);
  }
  if (status === 408) return new ProviderError("timeout", detail, options);
  if (status === 429) {
    return isQuotaExhausted(body)
      ? new ProviderError("rate_limited", `${detail} (quota exhausted, not retried)`, {
        ...options,
        isRetryable: false,
      })
      : new ProviderError("rate_limited", detail, options);
  }
  if (status >= 500) return new ProviderError("server_error", detail, options);
  if (status >= 400) return new ProviderError("bad_request", detail, options);
  return new ProviderError("bad_response", `${detail} (unexpected status)`, options);
}
