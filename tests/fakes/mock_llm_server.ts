/**
 * @module
 * A local HTTP server that speaks the wire formats of OpenAI (`/chat/completions`),
 * Gemini (`models/{model}:generateContent`, `:streamGenerateContent?alt=sse`) and
 * Anthropic (`/v1/messages`), streaming included, with scripted faults
 * (`mock_llm_faults.ts`). Each provider's format lives in its own `mock_*_wire.ts`; this
 * module routes a request to its wire, picks its fault and answers. `scripts/mock_llm_server.ts`
 * runs it by hand.
 *
 * A fault is chosen per request by the `x-mock-fault` header, else by a path prefix
 * `/fault/<name>/…`, else by the queue a test sets with `script(…)`.
 */
import { exampleFromSchema } from "../../lib/llm/mod.ts";
import { mockAnthropicWire } from "./mock_anthropic_wire.ts";
import { mockGeminiWire } from "./mock_gemini_wire.ts";
import {
  failIn,
  oversizedResponse,
  splitFault,
  statusFaultResponse,
  streamedResponse,
  type StreamEnd,
  whenAborted,
} from "./mock_llm_faults.ts";
import {
  jsonResponse,
  type MockLlmRequest,
  type MockProvider,
  type MockWire,
  type ParsedRequest,
} from "./mock_llm_wire.ts";
import { mockOpenAiWire } from "./mock_openai_wire.ts";

export type { MockLlmRequest, MockProvider } from "./mock_llm_wire.ts";

const WIRES: readonly MockWire[] = [mockOpenAiWire, mockGeminiWire, mockAnthropicWire];

/** What an `answer` function gets. */
export interface MockAnswerContext {
  provider: MockProvider;
  model: string;
  /** The last user text. */
  prompt: string;
  system?: string;
  /** The JSON Schema the request asked the answer to follow. */
  schema?: Record<string, unknown>;
  stream: boolean;
  request: MockLlmRequest;
}

export interface MockLlmServerOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** The answer: a string is text, anything else is a JSON answer. */
  answer?: (context: MockAnswerContext) => unknown;
  /** Characters per streamed delta (default 8). */
  chunkSize?: number;
  /** Pause between streamed frames, to watch a stream arrive (default 0). */
  frameDelayMs?: number;
  /** Size of the `oversized` bodies (default 2 MiB). */
  oversizedBytes?: number;
  /** One line per request (the CLI prints them); header values are never included. */
  log?: (line: string) => void;
}

export interface MockLlmServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Base URL for OPENAI_ENDPOINT (`…/openai/v1`). */
  openaiUrl: string;
  /** Base URL for GEMINI_ENDPOINT (`…/gemini/v1beta`). */
  geminiUrl: string;
  /** Base URL for ANTHROPIC_ENDPOINT (`…/anthropic`). */
  anthropicUrl: string;
  port: number;
  /** Every request so far, in order. */
  readonly requests: MockLlmRequest[];
  /**
   * Sets the faults of the next requests, one each (`ok` or `null` for a normal answer),
   * replacing what was left of an earlier script; requests after it are answered normally.
   */
  script(...faults: (string | null)[]): void;
  /** A provider base URL whose every request gets `fault`. */
  faultUrl(provider: MockProvider, fault: string): string;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The settings every request of one server is answered with. */
interface ServerState {
  readonly options: MockLlmServerOptions;
  readonly requests: MockLlmRequest[];
  readonly queue: (string | null)[];
  readonly closing: AbortSignal;
  readonly chunkSize: number;
}

/** Starts the server on 127.0.0.1 (port 0 unless `options.port`). */
export function startMockLlmServer(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const closing = new AbortController();
  const state: ServerState = {
    options,
    requests: [],
    queue: [],
    closing: closing.signal,
    chunkSize: Math.max(1, options.chunkSize ?? 8),
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    signal: closing.signal,
    onListen: () => {},
    onError: () => jsonResponse(500, { error: { message: "Mock server error" } }),
  }, (request) => handle(state, request));
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      closing.abort();
      await server.finished;
    })();
  const url = `http://127.0.0.1:${server.addr.port}`;
  return Promise.resolve({
    url,
    port: server.addr.port,
    openaiUrl: url + mockOpenAiWire.basePath,
    geminiUrl: url + mockGeminiWire.basePath,
    anthropicUrl: url + mockAnthropicWire.basePath,
    requests: state.requests,
    script: (...faults) => void state.queue.splice(0, state.queue.length, ...faults),
    faultUrl: (provider, fault) =>
      `${url}/fault/${encodeURIComponent(fault)}${wireOf(provider).basePath}`,
    close,
    [Symbol.asyncDispose]: close,
  });
}

function wireOf(provider: MockProvider): MockWire {
  return WIRES.find((wire) => wire.provider === provider)!;
}

/** Records the request, then answers it: no route, a status fault, or an answer. */
async function handle(state: ServerState, request: Request): Promise<Response> {
  const seen = await recordRequest(state, request);
  const wire = WIRES.find((candidate) => candidate.provider === seen.provider);
  if (!wire || request.method !== "POST") {
    state.options.log?.(`${request.method} ${seen.path} -> 404`);
    return jsonResponse(404, {
      error: { message: `No mock route: ${request.method} ${seen.path}` },
    });
  }
  const parsed = wire.parse(seen.path, seen.body);
  seen.stream = parsed.stream;
  state.options.log?.(
    `${request.method} ${seen.path}${seen.search} ${wire.provider}` +
      (parsed.stream ? " stream" : "") + (seen.fault ? ` fault=${seen.fault}` : ""),
  );
  return statusFaultResponse(wire, seen.fault, request) ??
    await answerResponse(state, wire, parsed, seen);
}

/** The request as seen: its path without a fault prefix, its provider, fault and body. */
async function recordRequest(state: ServerState, request: Request): Promise<MockLlmRequest> {
  const url = new URL(request.url);
  const prefix = /^\/fault\/([^/]+)(\/.*)$/.exec(url.pathname);
  const path = prefix ? prefix[2] : url.pathname;
  let fault = request.headers.get("x-mock-fault") ??
    (prefix ? decodeURIComponent(prefix[1]) : undefined);
  const provider = WIRES.find((wire) => wire.matches(path))?.provider;
  if (fault === undefined && provider && state.queue.length > 0) {
    fault = state.queue.shift() ?? undefined;
  }
  const seen: MockLlmRequest = {
    method: request.method,
    path,
    search: url.search,
    headers: Object.fromEntries(request.headers),
    body: parseJsonOr(await request.text()),
    provider,
    stream: false,
    fault: fault === "ok" ? undefined : fault,
  };
  state.requests.push(seen);
  return seen;
}

/** A normal answer, or one shaped by an answer fault (`stall`, `malformed`, …). */
async function answerResponse(
  state: ServerState,
  wire: MockWire,
  parsed: ParsedRequest,
  seen: MockLlmRequest,
): Promise<Response> {
  const [fault] = splitFault(seen.fault);
  if (fault === "hang") {
    // Released only by close(): request.signal would also fire on normal completion.
    await whenAborted(state.closing);
    return failIn(wire)(504, "Hung request released", "api_error");
  }
  if (fault === "oversized" || fault === "oversized-chunked") {
    const bytes = state.options.oversizedBytes ?? 2 * 1024 * 1024;
    return oversizedResponse(bytes, fault === "oversized-chunked", parsed.stream);
  }
  const answer = fault === "schema-invalid"
    ? { unexpected_property: true }
    : answerOf(state, parsed, seen);
  const text = typeof answer === "string" ? answer : JSON.stringify(answer);
  if (parsed.stream) return streamAnswer(state, wire, parsed, text, fault);
  const toolInput = typeof answer === "string" ? parseJsonOr(answer, { text: answer }) : answer;
  return completeAnswer(state, wire, wire.completeBody(parsed, text, toolInput), fault);
}

function answerOf(state: ServerState, parsed: ParsedRequest, seen: MockLlmRequest): unknown {
  const { provider, model, prompt, system, schema, stream } = parsed;
  const context = { provider, model, prompt, system, schema, stream, request: seen };
  return state.options.answer?.(context) ??
    (schema ? exampleFromSchema(schema) : `Mock ${provider} answer to: ${prompt}`);
}

/** A streamed answer; mid-stream faults keep the opening frames and two text deltas. */
function streamAnswer(
  state: ServerState,
  wire: MockWire,
  parsed: ParsedRequest,
  text: string,
  fault: string | undefined,
): Response {
  const send = (frames: readonly string[], end: StreamEnd) =>
    streamedResponse(frames, end, sseOptions(state, "text/event-stream"));
  if (fault === "malformed") return send([wire.frame("{not json")], "close");
  const frames = wire.streamFrames(parsed, piecesOf(text, state.chunkSize));
  const partial = frames.slice(0, wire.openingFrames + 2);
  if (fault === "stall" || fault === "reset") return send(partial, fault);
  if (fault === "stream-error") return send([...partial, wire.streamErrorFrame()], "close");
  return send(frames, "close");
}

/** A whole answer; a broken one is cut in half. */
function completeAnswer(
  state: ServerState,
  wire: MockWire,
  body: unknown,
  fault: string | undefined,
): Response {
  if (fault === "stream-error") return failIn(wire)(...wire.overloaded);
  const full = JSON.stringify(body);
  const half = full.slice(0, Math.floor(full.length / 2));
  if (fault === "malformed") {
    return new Response(half, { headers: { "content-type": "application/json" } });
  }
  if (fault === "stall" || fault === "reset") {
    return streamedResponse([half], fault, sseOptions(state, "application/json"));
  }
  return new Response(full, { headers: { "content-type": "application/json" } });
}

function sseOptions(state: ServerState, contentType: string) {
  return { contentType, frameDelayMs: state.options.frameDelayMs ?? 0, closing: state.closing };
}

/** `text` in pieces of `size` characters; an empty text is one empty piece. */
function piecesOf(text: string, size: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let index = 0; index < characters.length; index += size) {
    pieces.push(characters.slice(index, index + size).join(""));
  }
  return pieces.length ? pieces : [""];
}

/** The parsed JSON of `text`, else `fallback` (by default the text itself). */
function parseJsonOr(text: string, fallback: unknown = text): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
