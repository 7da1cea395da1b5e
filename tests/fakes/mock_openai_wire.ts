import {
  asRecord,
  type Fail,
  jsonResponse,
  lfFrame,
  type MockWire,
  type ParsedRequest,
  recordsOf,
  textOf,
  tokenCounts,
} from "./mock_llm_wire.ts";

/** OpenAI chat completions (`/openai/v1/chat/completions`), as the mock server speaks it. */
export const mockOpenAiWire: MockWire = {
  provider: "openai",
  basePath: "/openai/v1",
  openingFrames: 1,
  overloaded: [500, "The server had an error", "server_error"],
  faults: { "429-quota": insufficientQuota },
  matches: (path) => path.startsWith("/openai/") && path.endsWith("/chat/completions"),
  parse: (_path, body) => parseOpenAi(body),
  errorBody: (_status, message, kind) => ({
    error: { message, type: kind, param: null, code: kind },
  }),
  frame: lfFrame,
  streamFrames: openAiFrames,
  streamErrorFrame: () =>
    lfFrame({ error: { message: "The server had an error", type: "server_error" } }),
  completeBody: openAiCompletion,
};

function parseOpenAi(body: unknown): ParsedRequest {
  const request = asRecord(body);
  const messages = recordsOf(request.messages);
  const users = messages.filter((message) => message.role === "user");
  const systems = messages.filter((message) => message.role === "system");
  const format = asRecord(request.response_format);
  return {
    provider: "openai",
    model: String(request.model ?? "unknown"),
    stream: request.stream === true,
    prompt: textOf(users.at(-1)?.content),
    system: systems.length
      ? systems.map((message) => textOf(message.content)).join("\n\n")
      : undefined,
    schema: format.type === "json_schema"
      ? asRecord(asRecord(format.json_schema).schema)
      : undefined,
    includeUsage: asRecord(request.stream_options).include_usage === true,
  };
}

function openAiFrames(parsed: ParsedRequest, pieces: readonly string[]): string[] {
  const base = {
    id: "chatcmpl-mock",
    object: "chat.completion.chunk",
    created: 0,
    model: parsed.model,
  };
  const frames = [
    lfFrame({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }),
    ...pieces.map((piece) =>
      lfFrame({ ...base, choices: [{ index: 0, delta: { content: piece } }] })
    ),
    lfFrame({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  ];
  if (parsed.includeUsage) {
    const tokens = tokenCounts(parsed, pieces.join(""));
    const usage = {
      prompt_tokens: tokens.input,
      completion_tokens: tokens.output,
      total_tokens: tokens.total,
    };
    frames.push(lfFrame({ ...base, choices: [], usage }));
  }
  frames.push(lfFrame("[DONE]"));
  return frames;
}

function openAiCompletion(parsed: ParsedRequest, text: string): unknown {
  const tokens = tokenCounts(parsed, text);
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: 0,
    model: parsed.model,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: {
      prompt_tokens: tokens.input,
      completion_tokens: tokens.output,
      total_tokens: tokens.total,
    },
  };
}

function insufficientQuota(_fail: Fail): Response {
  return jsonResponse(429, {
    error: {
      message: "You exceeded your current quota, please check your plan and billing details",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    },
  });
}
