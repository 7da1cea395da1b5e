import {
  asRecord,
  lfFrame,
  type MockWire,
  type ParsedRequest,
  recordsOf,
  textOf,
  tokenCounts,
} from "./mock_llm_wire.ts";

/** Anthropic messages (`/anthropic/v1/messages`), as the mock server speaks it. */
export const mockAnthropicWire: MockWire = {
  provider: "anthropic",
  basePath: "/anthropic",
  openingFrames: 3,
  overloaded: [529, "Overloaded", "overloaded_error"],
  // Anthropic has no quota 429 (billing problems are 400s): a plain rate limit.
  faults: { "429-quota": (fail) => fail(429, "Rate limit reached", "rate_limit_error") },
  matches: (path) => path.startsWith("/anthropic/") && path.endsWith("/messages"),
  parse: (_path, body) => parseAnthropic(body),
  errorBody: (_status, message, kind) => ({ type: "error", error: { type: kind, message } }),
  frame: lfFrame,
  streamFrames: anthropicFrames,
  streamErrorFrame: () =>
    lfFrame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error"),
  completeBody: anthropicMessage,
};

function parseAnthropic(body: unknown): ParsedRequest {
  const request = asRecord(body);
  const users = recordsOf(request.messages).filter((message) => message.role === "user");
  const choice = asRecord(request.tool_choice);
  const tool = choice.type === "tool"
    ? recordsOf(request.tools).find((entry) => entry.name === choice.name)
    : undefined;
  return {
    provider: "anthropic",
    model: String(request.model ?? "unknown"),
    stream: request.stream === true,
    prompt: textOf(users.at(-1)?.content),
    system: typeof request.system === "string" ? request.system : undefined,
    schema: tool ? asRecord(tool.input_schema) : undefined,
    toolName: tool ? String(tool.name) : undefined,
    includeUsage: true,
  };
}

/** An event named by its own `type`, as Anthropic sends them. */
function event(data: { type: string } & Record<string, unknown>): string {
  return lfFrame(data, data.type);
}

/** Text deltas, or `input_json_delta`s when a tool was forced for a JSON answer. */
function anthropicFrames(parsed: ParsedRequest, pieces: readonly string[]): string[] {
  const tool = parsed.toolName !== undefined;
  const tokens = tokenCounts(parsed, pieces.join(""));
  const message = {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model: parsed.model,
    content: [],
    stop_reason: null,
    usage: { input_tokens: tokens.input, output_tokens: 1 },
  };
  const block = tool
    ? { type: "tool_use", id: "toolu_mock", name: parsed.toolName, input: {} }
    : { type: "text", text: "" };
  return [
    event({ type: "message_start", message }),
    event({ type: "content_block_start", index: 0, content_block: block }),
    event({ type: "ping" }),
    ...pieces.map((piece) =>
      event({
        type: "content_block_delta",
        index: 0,
        delta: tool
          ? { type: "input_json_delta", partial_json: piece }
          : { type: "text_delta", text: piece },
      })
    ),
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "message_delta",
      delta: { stop_reason: tool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: tokens.output },
    }),
    event({ type: "message_stop" }),
  ];
}

function anthropicMessage(parsed: ParsedRequest, text: string, answer: unknown): unknown {
  const tool = parsed.toolName !== undefined;
  const tokens = tokenCounts(parsed, text);
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
    usage: { input_tokens: tokens.input, output_tokens: tokens.output },
  };
}
