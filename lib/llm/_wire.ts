/** What every provider's wire format supplies to the shared HTTP engine. */
import { ProviderError } from "./provider_error.ts";
import type { SseEvent } from "./sse.ts";
import type { ChatMessage, FailureReason, GenerateRequest, ModelConfig, Usage } from "./types.ts";
import { endpointPathOf, isRecord, joinEndpoint } from "../core/mod.ts";

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A parsed (non-streamed) answer, before the JSON answer is checked. */
export interface WireAnswer {
  text: string;
  /** A JSON answer that arrived as an object (Anthropic tool input). */
  json?: unknown;
  usage?: Usage;
  finishReason?: string;
}

export interface StreamState {
  usage?: Usage;
  finishReason?: string;
  /** Whether the stream may end without an explicit end marker (Gemini has none). */
  complete: boolean;
}

export interface Wire {
  buildRequest(config: ModelConfig, request: GenerateRequest, stream: boolean): WireRequest;
  parseAnswer(body: unknown, request: GenerateRequest): WireAnswer;
  newStreamState(): StreamState;
  /**
   * Reads one SSE event: hands its text deltas to `deliver`, in order, and returns true
   * for the provider's end marker (`[DONE]`, `message_stop`). Throws `ProviderError` for
   * an error event inside the stream.
   */
  onEvent(
    state: StreamState,
    event: SseEvent,
    request: GenerateRequest,
    deliver: (delta: string) => void,
  ): boolean;
  /** A streamed JSON answer as the caller asked for it (Anthropic unwraps `{ value }`). */
  unwrapStreamJson?(request: GenerateRequest, json: unknown): unknown;
}

/** A request URL: the path joined to the endpoint (see core `joinEndpoint`). */
export const endpointUrl: (endpoint: string, path: string) => string = joinEndpoint;

/** The endpoint's path without its query. */
export const endpointPath: (endpoint: string) => string = endpointPathOf;

/** Throws unless the request has a turn to answer: a prompt, or a message that is not system. */
function requireTurn(request: GenerateRequest): void {
  const hasPrompt = request.prompt !== undefined && request.prompt !== "";
  if (hasPrompt || (request.messages ?? []).some((message) => message.role !== "system")) return;
  throw new ProviderError("bad_request", "Request has no prompt or user message");
}

/** The system text and the conversation, with `prompt` appended as the last user turn. */
export function conversationOf(
  request: GenerateRequest,
): { system?: string; turns: { role: "user" | "assistant"; content: string }[] } {
  requireTurn(request);
  const systemParts: string[] = [];
  if (request.system) systemParts.push(request.system);
  const turns: { role: "user" | "assistant"; content: string }[] = [];
  for (const message of request.messages ?? []) {
    if (message.role === "system") systemParts.push(message.content);
    else turns.push({ role: message.role, content: message.content });
  }
  if (request.prompt !== undefined && request.prompt !== "") {
    turns.push({ role: "user", content: request.prompt });
  }
  return { system: systemParts.length ? systemParts.join("\n\n") : undefined, turns };
}

/** OpenAI keeps system messages in place; the request's `system` goes first. */
export function openAiMessages(request: GenerateRequest): ChatMessage[] {
  requireTurn(request); // the same check as every provider's, without building their turns
  const messages: ChatMessage[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  messages.push(...(request.messages ?? []));
  if (request.prompt !== undefined && request.prompt !== "") {
    messages.push({ role: "user", content: request.prompt });
  }
  return messages;
}

/** `schemaName` as the wire allows it (`^[a-zA-Z0-9_-]{1,64}$`). */
export function wireSchemaName(request: GenerateRequest): string {
  const cleaned = (request.schemaName ?? "answer").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return cleaned || "answer";
}

export function parseJsonEvent(event: SseEvent): Record<string, unknown> {
  try {
    const value = JSON.parse(event.data);
    if (value !== null && typeof value === "object") return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ProviderError(
    "bad_response",
    `Stream event is not a JSON object: ${event.data.slice(0, 120)}`,
  );
}

export function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Usage with `totalTokens` filled in when both halves are known. */
export function makeUsage(input?: number, output?: number, total?: number): Usage | undefined {
  if (input === undefined && output === undefined && total === undefined) return undefined;
  const usage: Usage = {};
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  const sum = total ?? (input !== undefined && output !== undefined ? input + output : undefined);
  if (sum !== undefined) usage.totalTokens = sum;
  return usage;
}

/** The reason for an error object found inside a 200 stream, from its type or code words. */
export function reasonOfErrorWords(words: string): FailureReason {
  const text = words.toLowerCase();
  if (/auth|permission|api_key_invalid|unauthenticated/.test(text)) return "auth_error";
  if (/rate_limit|resource_exhausted|too_many/.test(text)) return "rate_limited";
  if (/invalid_request|invalid_argument|request_too_large|not_found/.test(text)) {
    return "bad_request";
  }
  if (/timeout|deadline/.test(text)) return "timeout";
  return "server_error";
}
