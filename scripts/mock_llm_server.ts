/**
 * @module
 * A local HTTP server that speaks the wire formats of OpenAI (`/chat/completions`),
 * Gemini (`models/{model}:generateContent`, `:streamGenerateContent?alt=sse`) and
 * Anthropic (`/v1/messages`), streaming included, with scripted faults. Tests import
 * `startMockLlmServer`; users run it for demos:
 *
 * ```sh
 * deno run -A scripts/mock_llm_server.ts --port 8787
 * LABS_EXTERNAL_LIVE=1 OPENAI_API_KEY=demo OPENAI_ENDPOINT=http://127.0.0.1:8787/openai/v1 …
 * ```
 *
 * A fault is chosen per request by the `x-mock-fault` header, else by a path prefix
 * `/fault/<name>/…`, else by the queue a test sets with `script(…)`. Names: `401`, `403`,
 * `invalid-key` (Gemini's 400 API_KEY_INVALID), `429`, `429-retry-after[:seconds]`,
 * `429-retry-after-ms[:ms]`, `429-retry-delay[:1.5s]` (Gemini RetryInfo), `429-quota`,
 * `500`, `503`, `hang`, `stall`, `reset`, `malformed`, `oversized`, `oversized-chunked`,
 * `schema-invalid`, `stream-error`, and `ok` for a normal answer.
 */
import { parseArgs } from "node:util";
import { redactText, secretsFromEnv } from "../lib/core/mod.ts";
import { exampleFromSchema } from "../lib/llm/mod.ts";
import { mockProviderAnswer, type RequestEnvelope } from "../lib/generate/mod.ts";

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

const encoder = new TextEncoder();

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function chunksOf(text: string, size: number): string[] {
  const characters = [...text];
  const out: string[] = [];
  for (let index = 0; index < characters.length; index += size) {
    out.push(characters.slice(index, index + size).join(""));
  }
  return out.length ? out : [""];
}

/** Resolves when any of the signals aborts. */
function whenAborted(...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    for (const signal of signals) signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part as { text?: string })?.text ?? "").join("");
  }
  return "";
}

interface Parsed {
  provider: MockProvider;
  model: string;
  stream: boolean;
  prompt: string;
  system?: string;
  schema?: Record<string, unknown>;
  /** Anthropic: the forced tool's name. */
  toolName?: string;
  includeUsage: boolean;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? value as Record<string, unknown> : {};
}

function parseProviderRequest(provider: MockProvider, path: string, body: unknown): Parsed {
  const request = record(body);
  if (provider === "openai") {
    const messages = Array.isArray(request.messages) ? request.messages.map(record) : [];
    const users = messages.filter((message) => message.role === "user");
    const systems = messages.filter((message) => message.role === "system");
    const format = record(request.response_format);
    return {
      provider,
      model: String(request.model ?? "unknown"),
      stream: request.stream === true,
      prompt: textOf(users.at(-1)?.content),
      system: systems.length
        ? systems.map((message) => textOf(message.content)).join("\n\n")
        : undefined,
      schema: format.type === "json_schema" ? record(record(format.json_schema).schema) : undefined,
      includeUsage: record(request.stream_options).include_usage === true,
    };
  }
  if (provider === "gemini") {
    const match = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
    const contents = Array.isArray(request.contents) ? request.contents.map(record) : [];
    const users = contents.filter((content) => content.role !== "model");
    const generation = record(request.generationConfig);
    const schema = generation.responseJsonSchema ?? generation.responseSchema;
    const system = request.systemInstruction
      ? textOf(record(request.systemInstruction).parts)
      : undefined;
    return {
      provider,
      model: decodeURIComponent(match?.[1] ?? "unknown"),
      stream: match?.[2] === "streamGenerateContent",
      prompt: textOf(users.at(-1)?.parts),
      system,
      schema: schema ? record(schema) : undefined,
      includeUsage: true,
    };
  }
  const messages = Array.isArray(request.messages) ? request.messages.map(record) : [];
  const users = messages.filter((message) => message.role === "user");
  const tools = Array.isArray(request.tools) ? request.tools.map(record) : [];
  const choice = record(request.tool_choice);
  const tool = choice.type === "tool"
    ? tools.find((entry) => entry.name === choice.name)
    : undefined;
  return {
    provider,
    model: String(request.model ?? "unknown"),
    stream: request.stream === true,
    prompt: textOf(users.at(-1)?.content),
    system: typeof request.system === "string" ? request.system : undefined,
    schema: tool ? record(tool.input_schema) : undefined,
    toolName: tool ? String(tool.name) : undefined,
    includeUsage: true,
  };
}

function errorBody(provider: MockProvider, status: number, message: string, kind: string) {
  if (provider === "anthropic") return { type: "error", error: { type: kind, message } };
  if (provider === "gemini") {
    const statusName: Record<number, string> = {
      400: "INVALID_ARGUMENT",
      401: "UNAUTHENTICATED",
      403: "PERMISSION_DENIED",
      429: "RESOURCE_EXHAUSTED",
      500: "INTERNAL",
      503: "UNAVAILABLE",
    };
    return { error: { code: status, message, status: statusName[status] ?? "UNKNOWN" } };
  }
  return { error: { message, type: kind, param: null, code: kind } };
}

function sseFrame(provider: MockProvider, data: unknown, event?: string): string {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  // Gemini ends its SSE lines with CRLF; the others with LF.
  if (provider === "gemini") return `data: ${text}\r\n\r\n`;
  return event ? `event: ${event}\ndata: ${text}\n\n` : `data: ${text}\n\n`;
}

/** The SSE frames of a normal streamed answer, in order. */
function streamFrames(parsed: Parsed, text: string, chunkSize: number): string[] {
  const pieces = chunksOf(text, chunkSize);
  const input = words(parsed.prompt);
  const output = words(text);
  const p = parsed.provider;
  if (p === "openai") {
    const id = "chatcmpl-mock";
    const base = { id, object: "chat.completion.chunk", created: 0, model: parsed.model };
    const frames = [
      sseFrame(p, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }),
      ...pieces.map((piece) =>
        sseFrame(p, { ...base, choices: [{ index: 0, delta: { content: piece } }] })
      ),
      sseFrame(p, { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    ];
    if (parsed.includeUsage) {
      frames.push(sseFrame(p, {
        ...base,
        choices: [],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      }));
    }
    frames.push(sseFrame(p, "[DONE]"));
    return frames;
  }
  if (p === "gemini") {
    return pieces.map((piece, index) => {
      const last = index === pieces.length - 1;
      const candidate: Record<string, unknown> = {
        content: { role: "model", parts: [{ text: piece }] },
        index: 0,
      };
      if (last) candidate.finishReason = "STOP";
      const chunk: Record<string, unknown> = {
        candidates: [candidate],
        modelVersion: parsed.model,
      };
      if (last) {
        chunk.usageMetadata = {
          promptTokenCount: input,
          candidatesTokenCount: output,
          totalTokenCount: input + output,
        };
      }
      return sseFrame(p, chunk);
    });
  }
  const tool = parsed.toolName !== undefined;
  const frames = [
    sseFrame(p, {
      type: "message_start",
      message: {
        id: "msg_mock",
        type: "message",
        role: "assistant",
        model: parsed.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: input, output_tokens: 1 },
      },
    }, "message_start"),
    sseFrame(p, {
      type: "content_block_start",
      index: 0,
      content_block: tool
        ? { type: "tool_use", id: "toolu_mock", name: parsed.toolName, input: {} }
        : { type: "text", text: "" },
    }, "content_block_start"),
    sseFrame(p, { type: "ping" }, "ping"),
    ...pieces.map((piece) =>
      sseFrame(p, {
        type: "content_block_delta",
        index: 0,
        delta: tool
          ? { type: "input_json_delta", partial_json: piece }
          : { type: "text_delta", text: piece },
      }, "content_block_delta")
    ),
    sseFrame(p, { type: "content_block_stop", index: 0 }, "content_block_stop"),
    sseFrame(p, {
      type: "message_delta",
      delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: output },
    }, "message_delta"),
    sseFrame(p, { type: "message_stop" }, "message_stop"),
  ];
  return frames;
}

/** The error frame of the `stream-error` fault. */
function streamErrorFrame(provider: MockProvider): string {
  if (provider === "anthropic") {
    return sseFrame(provider, {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    }, "error");
  }
  if (provider === "gemini") {
    return sseFrame(provider, {
      error: { code: 503, status: "UNAVAILABLE", message: "The model is overloaded" },
    });
  }
  return sseFrame(provider, {
    error: { message: "The server had an error", type: "server_error" },
  });
}

function completeBody(parsed: Parsed, text: string, answer: unknown): unknown {
  const input = words(parsed.prompt);
  const output = words(text);
  if (parsed.provider === "openai") {
    return {
      id: "chatcmpl-mock",
      object: "chat.completion",
      created: 0,
      model: parsed.model,
      choices: [{
        index: 0,
        message: { role: "assistant", content: text },
        finish_reason: "stop",
      }],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    };
  }
  if (parsed.provider === "gemini") {
    return {
      candidates: [{
        content: { role: "model", parts: [{ text }] },
        finishReason: "STOP",
        index: 0,
      }],
      usageMetadata: {
        promptTokenCount: input,
        candidatesTokenCount: output,
        totalTokenCount: input + output,
      },
      modelVersion: parsed.model,
    };
  }
  const tool = parsed.toolName !== undefined;
  return {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model: parsed.model,
    content: tool
      ? [{ type: "tool_use", id: "toolu_mock", name: parsed.toolName, input: answer }]
      : [{ type: "text", text }],
    stop_reason: tool ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: input, output_tokens: output },
  };
}

/** Starts the server on 127.0.0.1 (port 0 unless `options.port`). */
export function startMockLlmServer(options: MockLlmServerOptions = {}): Promise<MockLlmServer> {
  const requests: MockLlmRequest[] = [];
  const queue: (string | null)[] = [];
  const closing = new AbortController();
  const chunkSize = Math.max(1, options.chunkSize ?? 8);
  const oversizedBytes = options.oversizedBytes ?? 2 * 1024 * 1024;
  const frameDelayMs = options.frameDelayMs ?? 0;

  /** A streamed body: `frames` are sent, then `end` decides how the stream ends. */
  function streamed(
    frames: string[],
    end: "close" | "stall" | "reset",
    contentType: string,
  ): Response {
    const cancelled = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const frame of frames) {
          controller.enqueue(encoder.encode(frame));
          if (frameDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, frameDelayMs));
        }
        if (end === "close") return controller.close();
        // Let the partial frames reach the client before the stall or the reset.
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (end === "reset") return controller.error(new Error("mock connection reset"));
        await whenAborted(closing.signal, cancelled.signal);
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
    return new Response(body, { status: 200, headers: { "content-type": contentType } });
  }

  /** A body of `oversizedBytes`: one JSON value, or for a stream one event that large. */
  function oversized(chunked: boolean, stream: boolean): Response {
    const piece = encoder.encode("x".repeat(64 * 1024));
    const head = encoder.encode(stream ? 'data: {"pad":"' : '{"pad":"');
    const tail = encoder.encode(stream ? '"}\n\n' : '"}');
    const fill = oversizedBytes - head.length - tail.length;
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
    if (!chunked) headers["content-length"] = String(oversizedBytes);
    return new Response(body, { status: 200, headers });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    let path = url.pathname;
    let fault: string | undefined;
    const prefix = /^\/fault\/([^/]+)(\/.*)$/.exec(path);
    if (prefix) {
      fault = decodeURIComponent(prefix[1]);
      path = prefix[2];
    }
    fault = request.headers.get("x-mock-fault") ?? fault;
    let provider: MockProvider | undefined;
    if (path.startsWith("/openai/") && path.endsWith("/chat/completions")) provider = "openai";
    else if (path.startsWith("/gemini/") && /:(stream)?[gG]enerateContent$/.test(path)) {
      provider = "gemini";
    } else if (path.startsWith("/anthropic/") && path.endsWith("/messages")) provider = "anthropic";
    if (fault === undefined && provider && queue.length > 0) fault = queue.shift() ?? undefined;
    if (fault === "ok") fault = undefined;

    const bodyText = await request.text();
    let body: unknown = bodyText;
    try {
      body = JSON.parse(bodyText);
    } catch {
      // kept as text
    }
    const seen: MockLlmRequest = {
      method: request.method,
      path,
      search: url.search,
      headers: Object.fromEntries(request.headers),
      body,
      provider,
      stream: false,
      fault,
    };
    requests.push(seen);
    if (!provider || request.method !== "POST") {
      options.log?.(`${request.method} ${path} -> 404`);
      return json(404, { error: { message: `No mock route: ${request.method} ${path}` } });
    }
    const parsed = parseProviderRequest(provider, path, body);
    seen.stream = parsed.stream;
    options.log?.(
      `${request.method} ${path}${url.search} ${provider}${parsed.stream ? " stream" : ""}` +
        (fault ? ` fault=${fault}` : ""),
    );

    const [faultName, faultArgument] = fault ? fault.split(/:(.*)/s) : [undefined, undefined];
    const fail = (status: number, message: string, kind: string, headers = {}) =>
      json(status, errorBody(provider!, status, message, kind), headers);
    switch (faultName) {
      case undefined:
      case "schema-invalid":
      case "malformed":
      case "stall":
      case "reset":
      case "stream-error":
      case "oversized":
      case "oversized-chunked":
      case "hang":
        break;
      case "401": {
        // Like real providers, echo what was received: the client must redact it.
        const key = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ??
          request.headers.get("x-api-key") ?? request.headers.get("x-goog-api-key") ?? "";
        return fail(401, `Incorrect API key provided: ${key}`, "authentication_error");
      }
      case "403":
        return fail(403, "Permission denied", "permission_error");
      case "invalid-key":
        if (provider === "gemini") {
          return json(400, {
            error: {
              code: 400,
              message: "API key not valid. Please pass a valid API key.",
              status: "INVALID_ARGUMENT",
              details: [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                reason: "API_KEY_INVALID",
                domain: "googleapis.com",
              }],
            },
          });
        }
        return fail(401, "Invalid API key", "authentication_error");
      case "429":
        return fail(429, "Rate limit reached", "rate_limit_error");
      case "429-retry-after":
        return fail(429, "Rate limit reached", "rate_limit_error", {
          "retry-after": faultArgument ?? "1",
        });
      case "429-retry-after-ms":
        return fail(429, "Rate limit reached", "rate_limit_error", {
          "retry-after-ms": faultArgument ?? "1500",
        });
      case "429-retry-delay":
        return json(429, {
          error: {
            code: 429,
            message: "Resource has been exhausted",
            status: "RESOURCE_EXHAUSTED",
            details: [{
              "@type": "type.googleapis.com/google.rpc.RetryInfo",
              retryDelay: faultArgument ?? "1.5s",
            }],
          },
        });
      case "429-quota":
        if (provider === "gemini") {
          return json(429, {
            error: {
              code: 429,
              message: "You exceeded your current quota",
              status: "RESOURCE_EXHAUSTED",
              details: [{
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }],
              }],
            },
          });
        }
        if (provider === "anthropic") {
          // Anthropic has no quota 429 (billing problems are 400s): a plain rate limit.
          return fail(429, "Rate limit reached", "rate_limit_error");
        }
        return json(429, {
          error: {
            message: "You exceeded your current quota, please check your plan and billing details",
            type: "insufficient_quota",
            param: null,
            code: "insufficient_quota",
          },
        });
      case "500":
        return fail(500, "The server had an error while processing your request", "api_error");
      case "503":
        return fail(503, "The service is temporarily unavailable", "overloaded_error");
      default:
        return fail(400, `Unknown mock fault: ${fault}`, "invalid_request_error");
    }

    if (faultName === "hang") {
      // Released only by close(): request.signal would also fire on normal completion.
      await whenAborted(closing.signal);
      return fail(504, "Hung request released", "api_error");
    }
    if (faultName === "oversized" || faultName === "oversized-chunked") {
      return oversized(faultName === "oversized-chunked", parsed.stream);
    }

    let answer: unknown;
    if (faultName === "schema-invalid") {
      answer = { unexpected_property: true };
    } else {
      const context: MockAnswerContext = {
        provider,
        model: parsed.model,
        prompt: parsed.prompt,
        system: parsed.system,
        schema: parsed.schema,
        stream: parsed.stream,
        request: seen,
      };
      answer = options.answer?.(context) ??
        (parsed.schema
          ? exampleFromSchema(parsed.schema)
          : `Mock ${provider} answer to: ${parsed.prompt}`);
    }
    const text = typeof answer === "string" ? answer : JSON.stringify(answer);
    const toolInput = typeof answer === "string" ? safeParse(answer) : answer;

    if (parsed.stream) {
      const contentType = "text/event-stream";
      if (faultName === "malformed") {
        return streamed([sseFrame(provider, "{not json")], "close", contentType);
      }
      const frames = streamFrames(parsed, text, chunkSize);
      // Faults mid-stream keep the opening frames and two text deltas.
      const opening = provider === "openai" ? 1 : provider === "anthropic" ? 3 : 0;
      const partial = frames.slice(0, opening + 2);
      if (faultName === "stall") return streamed(partial, "stall", contentType);
      if (faultName === "reset") return streamed(partial, "reset", contentType);
      if (faultName === "stream-error") {
        return streamed([...partial, streamErrorFrame(provider)], "close", contentType);
      }
      return streamed(frames, "close", contentType);
    }

    if (faultName === "stream-error") {
      return provider === "anthropic"
        ? fail(529, "Overloaded", "overloaded_error")
        : fail(500, "The server had an error", "server_error");
    }
    const full = JSON.stringify(completeBody(parsed, text, toolInput));
    if (faultName === "malformed") {
      return new Response(full.slice(0, Math.floor(full.length / 2)), {
        headers: { "content-type": "application/json" },
      });
    }
    if (faultName === "stall" || faultName === "reset") {
      const half = full.slice(0, Math.floor(full.length / 2));
      return streamed([half], faultName, "application/json");
    }
    return new Response(full, { headers: { "content-type": "application/json" } });
  }

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      signal: closing.signal,
      onListen: () => {},
      onError: () => json(500, { error: { message: "Mock server error" } }),
    }, handle);
    const port = server.addr.port;
    const url = `http://127.0.0.1:${port}`;
    let closed: Promise<void> | undefined;
    const close = () => {
      closed ??= (async () => {
        closing.abort();
        await server.finished;
      })();
      return closed;
    };
    resolve({
      url,
      port,
      openaiUrl: `${url}/openai/v1`,
      geminiUrl: `${url}/gemini/v1beta`,
      anthropicUrl: `${url}/anthropic`,
      requests,
      script: (...faults) => {
        queue.splice(0, queue.length, ...faults);
      },
      faultUrl: (provider, fault) => {
        const base = { openai: "/openai/v1", gemini: "/gemini/v1beta", anthropic: "/anthropic" };
        return `${url}/fault/${encodeURIComponent(fault)}${base[provider]}`;
      },
      close,
      [Symbol.asyncDispose]: close,
    });
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { text };
  }
}

/**
 * For demos of `syn generate --engine=… ` in live mode against this server: a prompt that
 * is a Labs request envelope gets the same prompt-dependent asset answer the mock mode
 * gives; anything else falls back to the default answer.
 */
function answerGenerateEnvelope(context: MockAnswerContext): unknown {
  const envelope = safeParse(context.prompt) as Partial<RequestEnvelope>;
  if (typeof envelope.prompt !== "string" || typeof envelope.trace_id !== "string") {
    return undefined;
  }
  return mockProviderAnswer(context.provider, envelope as RequestEnvelope);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { port: { type: "string", default: "8787" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    console.log("Usage: deno run -A scripts/mock_llm_server.ts [--port 8787]");
    Deno.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Port must be an integer from 0 to 65535: ${values.port}`);
    Deno.exit(2);
  }
  const secrets = secretsFromEnv((name) => Deno.env.get(name));
  const server = await startMockLlmServer({
    port,
    answer: answerGenerateEnvelope,
    log: (line) => console.log(redactText(line, secrets)),
  });
  console.log(`mock LLM server on ${server.url}`);
  console.log(`  OPENAI_ENDPOINT=${server.openaiUrl}`);
  console.log(`  GEMINI_ENDPOINT=${server.geminiUrl}`);
  console.log(`  ANTHROPIC_ENDPOINT=${server.anthropicUrl}`);
  console.log("faults: header x-mock-fault: <name>, or a path prefix /fault/<name>/…");
  const stop = async () => {
    await server.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
