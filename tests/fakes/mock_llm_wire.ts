/**
 * What every provider wire of the mock LLM server shares: the request as the server saw
 * it, the provider request parsed into one shape, and the `MockWire` each provider module
 * implements (`mock_openai_wire.ts`, `mock_gemini_wire.ts`, `mock_anthropic_wire.ts`).
 */

export type MockProvider = "openai" | "gemini" | "anthropic";

/** A request as the server saw it. */
export interface MockLlmRequest {
  method: string;
  /** Path without the `/fault/<name>` prefix. */
  path: string;
  search: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  provider?: MockProvider;
  stream: boolean;
  fault?: string;
}

/** A provider request reduced to what the mock answers from. */
export interface ParsedRequest {
  provider: MockProvider;
  model: string;
  stream: boolean;
  /** The last user text. */
  prompt: string;
  system?: string;
  /** The JSON Schema the answer should follow. */
  schema?: Record<string, unknown>;
  /** Anthropic: the forced tool's name. */
  toolName?: string;
  includeUsage: boolean;
}

/** A JSON error response in a wire's own error shape. */
export type Fail = (
  status: number,
  message: string,
  kind: string,
  headers?: Record<string, string>,
) => Response;

/** One provider's wire format, as the mock server speaks it. */
export interface MockWire {
  readonly provider: MockProvider;
  /** The base path an endpoint variable points at (`/openai/v1`). */
  readonly basePath: string;
  /** Frames of a stream before its first text delta (kept by mid-stream faults). */
  readonly openingFrames: number;
  /** The failure a non-streamed request gets for the `stream-error` fault. */
  readonly overloaded: readonly [status: number, message: string, kind: string];
  /** Faults this provider answers in its own way (`invalid-key`, `429-quota`). */
  readonly faults: Readonly<Record<string, (fail: Fail) => Response>>;
  matches(path: string): boolean;
  parse(path: string, body: unknown): ParsedRequest;
  errorBody(status: number, message: string, kind: string): unknown;
  /** One server-sent event carrying `data` (a string is sent as is). */
  frame(data: unknown, event?: string): string;
  /** The frames of a normal streamed answer, in order. */
  streamFrames(parsed: ParsedRequest, pieces: readonly string[]): string[];
  /** The error event of the `stream-error` fault. */
  streamErrorFrame(): string;
  /** The body of a normal answer; `answer` is the JSON value behind `text`, if any. */
  completeBody(parsed: ParsedRequest, text: string, answer: unknown): unknown;
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The plain text of a message content: a string, or a list of `{text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part as { text?: string })?.text ?? "").join("");
  }
  return "";
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? value as Record<string, unknown> : {};
}

/** A list of records from a field that should be an array. */
export function recordsOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(asRecord) : [];
}

/** An SSE event with LF line ends, named when `event` is given. */
export function lfFrame(data: unknown, event?: string): string {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  return event ? `event: ${event}\ndata: ${text}\n\n` : `data: ${text}\n\n`;
}

/** Input and output token counts of an answer, by words. */
export function tokenCounts(parsed: ParsedRequest, text: string) {
  const input = wordCount(parsed.prompt);
  const output = wordCount(text);
  return { input, output, total: input + output };
}
