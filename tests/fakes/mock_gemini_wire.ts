import {
  asRecord,
  jsonResponse,
  type MockWire,
  type ParsedRequest,
  recordsOf,
  textOf,
  tokenCounts,
} from "./mock_llm_wire.ts";

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/**
 * Gemini (`/gemini/v1beta/models/{model}:generateContent`, `:streamGenerateContent`), as
 * the mock server speaks it.
 */
export const mockGeminiWire: MockWire = {
  provider: "gemini",
  basePath: "/gemini/v1beta",
  openingFrames: 0,
  overloaded: [500, "The server had an error", "server_error"],
  faults: { "invalid-key": invalidKey, "429-quota": dailyQuota },
  matches: (path) => path.startsWith("/gemini/") && /:(stream)?[gG]enerateContent$/.test(path),
  parse: parseGemini,
  errorBody: (status, message) => ({
    error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" },
  }),
  frame: geminiFrame,
  streamFrames: geminiFrames,
  streamErrorFrame: () =>
    geminiFrame({
      error: { code: 503, status: "UNAVAILABLE", message: "The model is overloaded" },
    }),
  completeBody: (parsed, text) => ({
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: usageMetadata(parsed, text),
    modelVersion: parsed.model,
  }),
};

/** Gemini ends its SSE lines with CRLF. */
function geminiFrame(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\r\n\r\n`;
}

function parseGemini(path: string, body: unknown): ParsedRequest {
  const request = asRecord(body);
  const match = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  const users = recordsOf(request.contents).filter((content) => content.role !== "model");
  const generation = asRecord(request.generationConfig);
  const schema = generation.responseJsonSchema ?? generation.responseSchema;
  return {
    provider: "gemini",
    model: decodeURIComponent(match?.[1] ?? "unknown"),
    stream: match?.[2] === "streamGenerateContent",
    prompt: textOf(users.at(-1)?.parts),
    system: request.systemInstruction
      ? textOf(asRecord(request.systemInstruction).parts)
      : undefined,
    schema: schema ? asRecord(schema) : undefined,
    includeUsage: true,
  };
}

function usageMetadata(parsed: ParsedRequest, text: string) {
  const tokens = tokenCounts(parsed, text);
  return {
    promptTokenCount: tokens.input,
    candidatesTokenCount: tokens.output,
    totalTokenCount: tokens.total,
  };
}

/** One chunk per piece; the last carries the finish reason and the usage. */
function geminiFrames(parsed: ParsedRequest, pieces: readonly string[]): string[] {
  const text = pieces.join("");
  return pieces.map((piece, index) => {
    const last = index === pieces.length - 1;
    const candidate: Record<string, unknown> = {
      content: { role: "model", parts: [{ text: piece }] },
      index: 0,
    };
    if (last) candidate.finishReason = "STOP";
    const chunk: Record<string, unknown> = { candidates: [candidate], modelVersion: parsed.model };
    if (last) chunk.usageMetadata = usageMetadata(parsed, text);
    return geminiFrame(chunk);
  });
}

function invalidKey(): Response {
  return jsonResponse(400, {
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

function dailyQuota(): Response {
  return jsonResponse(429, {
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
