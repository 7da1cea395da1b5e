/**
 * The server's retry hint in milliseconds, or `undefined` when it gave none usable:
 * `retry-after-ms` first (OpenAI), then `retry-after` as seconds or an HTTP date
 * (relative to `options.now`, the injected clock's time), then Gemini's
 * `error.details[].retryDelay` (`RetryInfo`, e.g. `"1.5s"`). Negative or unparsable
 * hints are ignored; the caller caps the result.
 */
export function retryDelayFromResponse(
  headers: Headers,
  body: unknown,
  options: { now: number },
): number | undefined {
  const { now } = options;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds)) {
    return Math.round(Number(milliseconds));
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null) {
    const text = retryAfter.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return geminiRetryDelay(body);
}

function geminiRetryDelay(body: unknown): number | undefined {
  const error = (body as { error?: { details?: unknown } } | null)?.error;
  if (!error || !Array.isArray(error.details)) return undefined;
  for (const detail of error.details) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay !== "string") continue;
    // google.protobuf.Duration in JSON: decimal seconds with an "s" suffix.
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}
