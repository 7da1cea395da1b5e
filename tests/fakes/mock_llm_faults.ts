/**
 * Fault injection for the mock LLM server: the faults answered with an error status at
 * once, and the bodies of the faults that shape an answer (a stalled, reset or oversized
 * body). Names: `401`, `403`, `invalid-key` (Gemini's 400 API_KEY_INVALID), `429`,
 * `429-retry-after[:seconds]`, `429-retry-after-ms[:ms]`, `429-retry-delay[:1.5s]` (Gemini
 * RetryInfo), `429-quota`, `500`, `503`, `hang`, `stall`, `reset`, `malformed`, `oversized`,
 * `oversized-chunked`, `schema-invalid`, `stream-error`, and `ok` for a normal answer.
 */
import { type Fail, jsonResponse, type MockWire } from "./mock_llm_wire.ts";

/** Faults that change the answer instead of replacing it with an error status. */
export const ANSWER_FAULTS: ReadonlySet<string> = new Set([
  "schema-invalid",
  "malformed",
  "stall",
  "reset",
  "stream-error",
  "oversized",
  "oversized-chunked",
  "hang",
]);

/** A fault name and its argument: `429-retry-after:2` → `["429-retry-after", "2"]`. */
export function splitFault(fault: string | undefined): [string | undefined, string | undefined] {
  if (!fault) return [undefined, undefined];
  const [name, argument] = fault.split(/:(.*)/s);
  return [name, argument];
}

type StatusFault = (fail: Fail, argument: string | undefined, request: Request) => Response;

const RATE_LIMITED = "Rate limit reached";

const STATUS_FAULTS: Readonly<Record<string, StatusFault>> = {
  "401": (fail, _argument, request) =>
    // Like real providers, echo what was received: the client must redact it.
    fail(401, `Incorrect API key provided: ${keyOf(request)}`, "authentication_error"),
  "403": (fail) => fail(403, "Permission denied", "permission_error"),
  "invalid-key": (fail) => fail(401, "Invalid API key", "authentication_error"),
  "429": (fail) => fail(429, RATE_LIMITED, "rate_limit_error"),
  "429-retry-after": (fail, argument) =>
    fail(429, RATE_LIMITED, "rate_limit_error", { "retry-after": argument ?? "1" }),
  "429-retry-after-ms": (fail, argument) =>
    fail(429, RATE_LIMITED, "rate_limit_error", { "retry-after-ms": argument ?? "1500" }),
  "429-retry-delay": (_fail, argument) => retryInfo(argument ?? "1.5s"),
  "500": (fail) => fail(500, "The server had an error while processing your request", "api_error"),
  "503": (fail) => fail(503, "The service is temporarily unavailable", "overloaded_error"),
};

/**
 * The error response of a status fault (the wire's own version first), a 400 for an
 * unknown fault, or undefined for no fault or one that shapes the answer.
 */
export function statusFaultResponse(
  wire: MockWire,
  fault: string | undefined,
  request: Request,
): Response | undefined {
  const [name, argument] = splitFault(fault);
  if (name === undefined || ANSWER_FAULTS.has(name)) return undefined;
  const fail = failIn(wire);
  const own = wire.faults[name];
  if (own) return own(fail);
  const shared = STATUS_FAULTS[name];
  if (shared) return shared(fail, argument, request);
  return fail(400, `Unknown mock fault: ${fault}`, "invalid_request_error");
}

/** Error responses in the wire's error shape. */
export function failIn(wire: MockWire): Fail {
  return (status, message, kind, headers = {}) =>
    jsonResponse(status, wire.errorBody(status, message, kind), headers);
}

function keyOf(request: Request): string {
  return request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ??
    request.headers.get("x-api-key") ?? request.headers.get("x-goog-api-key") ?? "";
}

function retryInfo(delay: string): Response {
  return jsonResponse(429, {
    error: {
      code: 429,
      message: "Resource has been exhausted",
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay }],
    },
  });
}

/** Resolves when any of the signals aborts. */
export function whenAborted(...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    for (const signal of signals) signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

const encoder = new TextEncoder();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How a streamed body ends after its frames: normally, never (until `closing`), or broken. */
export type StreamEnd = "close" | "stall" | "reset";

/** A streamed body: `frames` are sent (`frameDelayMs` apart), then it ends as `end` says. */
export function streamedResponse(
  frames: readonly string[],
  end: StreamEnd,
  options: { contentType: string; frameDelayMs: number; closing: AbortSignal },
): Response {
  const cancelled = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const frame of frames) {
        controller.enqueue(encoder.encode(frame));
        if (options.frameDelayMs > 0) await pause(options.frameDelayMs);
      }
      if (end === "close") return controller.close();
      // Let the partial frames reach the client before the stall or the reset.
      await pause(20);
      if (end === "reset") return controller.error(new Error("mock connection reset"));
      await whenAborted(options.closing, cancelled.signal);
      try {
        controller.close();
      } catch {
        // already cancelled by the client
      }
    },
    cancel() {
      cancelled.abort();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": options.contentType } });
}

/** A body of `bytes`: one JSON value, or for a stream one event that large. */
export function oversizedResponse(bytes: number, chunked: boolean, stream: boolean): Response {
  const piece = encoder.encode("x".repeat(64 * 1024));
  const head = encoder.encode(stream ? 'data: {"pad":"' : '{"pad":"');
  const tail = encoder.encode(stream ? '"}\n\n' : '"}');
  const fill = bytes - head.length - tail.length;
  let sent = -1;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < fill) {
        const size = Math.min(piece.length, fill - sent);
        controller.enqueue(piece.subarray(0, size));
        sent += size;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  const headers: Record<string, string> = {
    "content-type": stream ? "text/event-stream" : "application/json",
  };
  if (!chunked) headers["content-length"] = String(bytes);
  return new Response(body, { status: 200, headers });
}
