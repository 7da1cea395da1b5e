import { loadConfig } from "../core/mod.ts";
import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { responseHash } from "../core/mod.ts";
import { createLanguageModel, REQUEST_BODY_LIMIT } from "./create_language_model.ts";
import { ProviderError } from "./provider_error.ts";
import { resolveModelConfig } from "./resolve_model_config.ts";
import type { GenerateRequest, LanguageModel, ProviderName, StreamEvent } from "./types.ts";
import { rejection } from "../../tests/fakes/rejection.ts";

interface Call {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch that answers from a list (the last answer repeats) and records each call. */
function fakeFetch(answers: (() => Response | Promise<Response>)[]) {
  const calls: Call[] = [];
  const fetcher = (input: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)),
    });
    return Promise.resolve(answers[Math.min(calls.length - 1, answers.length - 1)]());
  };
  return { fetch: fetcher as typeof fetch, calls };
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}) {
  return () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
}

const OPENAI_OK = jsonResponse(200, {
  choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

const LIVE_ENV: Record<string, string> = {
  LABS_EXTERNAL_LIVE: "1",
  OPENAI_API_KEY: "sk-test-0123456789abcdefXYZ",
  GEMINI_API_KEY: "gemini-test-key-0123",
  ANTHROPIC_API_KEY: "anthropic-test-key-0123",
};

function liveModel(
  provider: ProviderName,
  answers: (() => Response | Promise<Response>)[],
  options: { env?: Record<string, string>; random?: () => number; clock?: FakeClock } = {},
) {
  const env = options.env ?? LIVE_ENV;
  const config = resolveModelConfig(provider, { config: loadConfig((name) => env[name]) });
  const fake = fakeFetch(answers);
  const clock = options.clock ?? new FakeClock(Date.parse("2025-01-01T00:00:00Z"));
  const lines: string[] = [];
  const model = createLanguageModel(config, {
    fetch: fake.fetch,
    clock,
    random: options.random ?? (() => 0),
    log: (line) => lines.push(line),
  });
  return { model, calls: fake.calls, clock, lines };
}

const failure = (promise: Promise<unknown>) => rejection(promise, ProviderError);

Deno.test("createLanguageModel() sends Authorization only in live mode with a key", async () => {
  const live = liveModel("openai", [OPENAI_OK]);
  await live.model.generate({ prompt: "hi" });
  assert.equal(live.calls[0].headers.get("authorization"), `Bearer ${LIVE_ENV.OPENAI_API_KEY}`);

  const keyless = liveModel("openai-compatible", [OPENAI_OK], {
    env: { LABS_EXTERNAL_LIVE: "1", OPENAI_ENDPOINT: "http://127.0.0.1:9/v1" },
  });
  await keyless.model.generate({ prompt: "hi" });
  assert.equal(keyless.calls[0].headers.get("authorization"), null);

  const mockEnv: Record<string, string> = { OPENAI_API_KEY: LIVE_ENV.OPENAI_API_KEY };
  const mock = liveModel("openai", [OPENAI_OK], { env: mockEnv });
  assert.equal(mock.model.mode, "mock");
  await mock.model.generate({ prompt: "hi" });
  assert.equal(mock.calls.length, 0);
});

Deno.test("createLanguageModel() maps an OpenAI JSON request and answer", async () => {
  const answer = jsonResponse(200, {
    choices: [{ message: { content: '{"title":"x"}' }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  });
  const { model, calls } = liveModel("openai", [answer]);
  const schema = {
    type: "object",
    properties: { title: { type: "string" } },
    required: ["title"],
    additionalProperties: false,
  };
  const result = await model.generate({
    system: "be brief",
    prompt: "a title",
    jsonSchema: schema,
    schemaName: "asset title",
    seed: 42,
    temperature: 0.2,
    maxTokens: 100,
  });
  assert.equal(calls[0].url, "https://api.openai.com/v1/chat/completions");
  assert.deepEqual(calls[0].body, {
    model: "gpt-4o-mini",
    messages: [{ role: "system", content: "be brief" }, { role: "user", content: "a title" }],
    temperature: 0.2,
    max_completion_tokens: 100,
    seed: 42,
    response_format: {
      type: "json_schema",
      json_schema: { name: "asset_title", schema, strict: true },
    },
  });
  assert.deepEqual(result.json, { title: "x" });
  assert.deepEqual(result.usage, { inputTokens: 5, outputTokens: 2, totalTokens: 7 });
  assert.equal(result.mode, "live");
  assert.equal(result.apiVersion, "v1");
  assert.equal(result.responseHash.length, 16);
  assert.equal(result.rawSize, new TextEncoder().encode(result.raw).byteLength);
});

Deno.test("createLanguageModel() sends max_tokens to OpenAI-compatible servers", async () => {
  const { model, calls } = liveModel("openai-compatible", [OPENAI_OK], {
    env: { LABS_EXTERNAL_LIVE: "1" },
  });
  await model.generate({ prompt: "x", maxTokens: 64 });
  assert.equal(calls[0].url, "http://127.0.0.1:11434/v1/chat/completions");
  assert.equal(calls[0].body.max_tokens, 64);
  assert.equal(calls[0].body.max_completion_tokens, undefined);
});

Deno.test("createLanguageModel() keeps an endpoint's query after the path and masks its key", async () => {
  const geminiOk = jsonResponse(200, {
    candidates: [{ content: { parts: [{ text: "ok" }] }, finishReason: "STOP" }],
  });
  const { model, calls, lines } = liveModel("gemini", [jsonResponse(500, {}), geminiOk], {
    env: { ...LIVE_ENV, GEMINI_ENDPOINT: "https://gw.example/v1beta?key=QUERYKEY1234&tier=b" },
  });
  const result = await model.generate({ prompt: "x" });
  assert.equal(
    calls[0].url,
    "https://gw.example/v1beta/models/gemini-2.0-flash:generateContent?key=QUERYKEY1234&tier=b",
  );
  const streamCalls = liveModel("gemini", [geminiOk], {
    env: { ...LIVE_ENV, GEMINI_ENDPOINT: "https://gw.example/v1beta?key=QUERYKEY1234" },
  });
  await collect(streamCalls.model, { prompt: "x" });
  assert.equal(
    streamCalls.calls[0].url,
    "https://gw.example/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=QUERYKEY1234",
  );
  const shown = [model.endpoint, result.endpoint, ...lines].join("\n");
  assert.ok(!shown.includes("QUERYKEY1234"), shown);
  assert.match(result.endpoint, /\?key=\*\*\*redacted\*\*\*&tier=b$/);
  assert.ok(lines.some((line) => line.includes("generateContent?key=***redacted***")));

  const anthropic = liveModel("anthropic", [jsonResponse(200, { content: [] })], {
    env: { ...LIVE_ENV, ANTHROPIC_ENDPOINT: "https://gw.example/v1?api-version=2" },
  });
  await anthropic.model.generate({ prompt: "x" });
  assert.equal(anthropic.calls[0].url, "https://gw.example/v1/messages?api-version=2");
});

Deno.test("createLanguageModel() maps a Gemini request with the key header", async () => {
  const answer = jsonResponse(200, {
    candidates: [{ content: { parts: [{ text: '{"a":1}' }] }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 3, totalTokenCount: 5 },
  });
  const { model, calls } = liveModel("gemini", [answer]);
  const result = await model.generate({
    system: "sys",
    messages: [{ role: "user", content: "one" }, { role: "assistant", content: "two" }],
    prompt: "three",
    jsonSchema: { type: "object" },
    seed: 7,
  });
  assert.equal(
    calls[0].url,
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent",
  );
  assert.equal(calls[0].headers.get("x-goog-api-key"), LIVE_ENV.GEMINI_API_KEY);
  assert.equal(calls[0].headers.get("authorization"), null);
  assert.deepEqual(calls[0].body, {
    contents: [
      { role: "user", parts: [{ text: "one" }] },
      { role: "model", parts: [{ text: "two" }] },
      { role: "user", parts: [{ text: "three" }] },
    ],
    systemInstruction: { parts: [{ text: "sys" }] },
    generationConfig: {
      seed: 7,
      responseMimeType: "application/json",
      responseJsonSchema: { type: "object" },
    },
  });
  assert.deepEqual(result.json, { a: 1 });
  assert.equal(result.finishReason, "STOP");
});

Deno.test("createLanguageModel() asks Anthropic for JSON through a forced tool", async () => {
  const answer = jsonResponse(200, {
    content: [{ type: "tool_use", id: "t", name: "answer", input: { ok: true } }],
    stop_reason: "tool_use",
    usage: { input_tokens: 4, output_tokens: 6 },
  });
  const { model, calls } = liveModel("anthropic", [answer]);
  const schema = { type: "object", properties: { ok: { type: "boolean" } } };
  const result = await model.generate({ prompt: "go", jsonSchema: schema });
  assert.equal(calls[0].url, "https://api.anthropic.com/v1/messages");
  assert.equal(calls[0].headers.get("x-api-key"), LIVE_ENV.ANTHROPIC_API_KEY);
  assert.equal(calls[0].headers.get("anthropic-version"), "2023-06-01");
  assert.deepEqual(calls[0].body.tools, [{
    name: "answer",
    description: "Answer with the requested JSON object",
    input_schema: schema,
  }]);
  assert.deepEqual(calls[0].body.tool_choice, { type: "tool", name: "answer" });
  assert.equal(calls[0].body.max_tokens, 4096);
  assert.deepEqual(result.json, { ok: true });
  assert.deepEqual(result.usage, { inputTokens: 4, outputTokens: 6, totalTokens: 10 });
});

Deno.test("createLanguageModel() uses {endpoint}/messages when the Anthropic endpoint ends in /v1", async () => {
  const answer = jsonResponse(200, { content: [{ type: "text", text: "hi" }] });
  const { model, calls } = liveModel("anthropic", [answer], {
    env: { ...LIVE_ENV, ANTHROPIC_ENDPOINT: "https://gateway.example/v1" },
  });
  assert.equal((await model.generate({ prompt: "x" })).text, "hi");
  assert.equal(calls[0].url, "https://gateway.example/v1/messages");
});

Deno.test("createLanguageModel() refuses a request body over 256 KiB before sending", async () => {
  const { model, calls } = liveModel("openai", [OPENAI_OK]);
  const error = await failure(model.generate({ prompt: "x".repeat(REQUEST_BODY_LIMIT) }));
  assert.equal(error.reason, "bad_request");
  assert.equal(error.isRetryable, false);
  assert.equal(error.attempts, 0);
  assert.match(error.detail, /Request body is over the 256 KiB cap: \d+ bytes/);
  assert.equal(calls.length, 0);
  const fits = await model.generate({ prompt: "x".repeat(REQUEST_BODY_LIMIT - 200) });
  assert.equal(fits.text, "hello");
  // The cap counts UTF-8 bytes: 90,000 "✓" are 270,000 bytes.
  const wide = await failure(model.generate({ prompt: "✓".repeat(90_000) }));
  assert.match(wide.detail, /over the 256 KiB cap: 2700\d\d bytes/);
  assert.equal(calls.length, 1);
});

Deno.test("createLanguageModel() refuses a declared Content-Length over 1 MiB without reading", async () => {
  let pulled = 0;
  const big = () =>
    new Response(
      new ReadableStream({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(1024));
        },
      }),
      { headers: { "content-length": String(2 * 1024 * 1024) } },
    );
  const { model } = liveModel("openai", [big]);
  const error = await failure(model.generate({ prompt: "x" }));
  assert.equal(error.reason, "bad_response");
  assert.equal(error.attempts, 1);
  assert.match(error.detail, /over the 1 MiB cap: Content-Length 2097152/);
  assert.ok(pulled <= 2, `pulled ${pulled} chunks`);
});

Deno.test("createLanguageModel() refuses a request without a prompt or user message", async () => {
  const { model, calls } = liveModel("anthropic", [OPENAI_OK]);
  for (const request of [{}, { prompt: "" }, { system: "s", messages: [] }]) {
    const error = await failure(model.generate(request));
    assert.equal(error.reason, "bad_request");
    assert.equal(error.detail, "Request has no prompt or user message");
  }
  assert.equal(calls.length, 0);
});

Deno.test("createLanguageModel() stops reading just past 1 MiB, whether Content-Length is absent or lies", async () => {
  const cases: Record<string, string>[] = [{}, { "content-length": "100" }];
  for (const headers of cases) {
    let bytes = 0;
    const endless = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            bytes += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        }),
        { headers },
      );
    const { model } = liveModel("openai", [endless]);
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "bad_response");
    assert.match(error.detail, /over the 1 MiB cap: more than 1048576 bytes/);
    assert.ok(bytes <= 1024 * 1024 + 3 * 64 * 1024, `read ${bytes} bytes`);
  }
});

/** A fetch that ignores its abort signal: the timers must still end the attempt. */
Deno.test("createLanguageModel() enforces connect, read and total timeouts on a fetch that ignores the signal", async () => {
  const timeouts = { connectMs: 30, readMs: 30, totalMs: 5000 };
  const neverAnswers = () => new Promise<Response>(() => {});
  const connect = liveModel("openai", [neverAnswers]);
  const first = await failure(connect.model.generate({ prompt: "x", timeouts }));
  assert.equal(first.reason, "timeout");
  assert.equal(first.detail, "No response headers within 30 ms");
  assert.equal(first.attempts, 4);
  assert.deepEqual(connect.clock.sleeps, [200, 400, 800]);

  const stalls = () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"choices":'));
        },
      }),
    );
  const read = liveModel("openai", [stalls]);
  const second = await failure(read.model.generate({ prompt: "x", timeouts }));
  assert.equal(second.reason, "timeout");
  assert.equal(second.detail, "No response data for 30 ms");

  const frame = new TextEncoder().encode('data: {"choices":[{"delta":{"content":"a"}}]}\n\n');
  const trickles = () =>
    new Response(
      new ReadableStream({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          controller.enqueue(frame);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  const total = liveModel("openai", [trickles]);
  const { deltas, finish, error } = await collect(
    total.model,
    { prompt: "x", timeouts: { connectMs: 1000, readMs: 1000, totalMs: 80 } },
  );
  assert.ok(deltas.length > 0 && deltas.length < 80, `${deltas.length} deltas`);
  assert.equal(finish, undefined);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.reason, "timeout");
  assert.match(error.detail, /^Request took longer than 80 ms \(after \d+ text deltas\)$/);
});

Deno.test("createLanguageModel() retries with backoff 200, 400, 800 ms then gives up", async () => {
  const { model, calls, clock, lines } = liveModel("openai", [
    jsonResponse(503, { error: { message: "busy" } }),
  ]);
  const error = await failure(model.generate({ prompt: "x", traceId: "trace-1" }));
  assert.equal(error.reason, "server_error");
  assert.equal(error.status, 503);
  assert.equal(error.attempts, 4);
  assert.equal(calls.length, 4);
  assert.deepEqual(clock.sleeps, [200, 400, 800]);
  assert.deepEqual(error.attemptErrors.map((entry) => entry.delayMs), [200, 400, 800, undefined]);
  assert.deepEqual(error.attemptErrors.map((entry) => entry.status), [503, 503, 503, 503]);
  assert.equal(error.attemptErrors[0].detail, "HTTP 503: busy");
  assert.equal(
    error.message,
    "openai request failed with server_error after 4 attempts: HTTP 503: busy",
  );
  assert.equal(error.code, "server_error");
  assert.deepEqual(error.toFailure(), {
    reason: "server_error",
    detail: "HTTP 503: busy",
    status: 503,
    attempts: 4,
  });
  assert.equal(error.data.attempts, 4);
  assert.equal((error.data.attemptErrors as unknown[]).length, 4);
  assert.ok(
    lines.some((line) => line.includes("trace=trace-1") && line.includes("retrying in 200 ms")),
  );
});

Deno.test("createLanguageModel() applies jitter from the injected random source", async () => {
  const { model, clock } = liveModel("openai", [jsonResponse(500, {})], { random: () => 0.5 });
  await failure(model.generate({ prompt: "x" }));
  // core backoffDelay: raw × (1 − 0.2 × random) → 200 × 0.9, 400 × 0.9, 800 × 0.9
  assert.deepEqual(clock.sleeps, [180, 360, 720]);
});

Deno.test("createLanguageModel() honours server retry hints within the 5 s cap", async () => {
  const { model, clock } = liveModel("openai", [
    jsonResponse(429, {}, { "retry-after-ms": "1500" }),
    jsonResponse(429, {}, { "retry-after": "2" }),
    jsonResponse(429, {}, { "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }),
    OPENAI_OK,
  ]);
  const result = await model.generate({ prompt: "x" });
  assert.equal(result.attempts, 4);
  // The date is 7 s after the clock's start; 3.5 s have passed by the third reply: 3.5 s.
  assert.deepEqual(clock.sleeps, [1500, 2000, 3500]);

  const capped = liveModel("gemini", [
    jsonResponse(429, {
      error: {
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" }],
      },
    }),
  ]);
  const error = await failure(capped.model.generate({ prompt: "x" }));
  assert.equal(error.reason, "rate_limited");
  assert.deepEqual(capped.clock.sleeps, [5000, 5000, 5000]);
  assert.equal(error.attemptErrors[0].retryAfterMs, 30000);
});

Deno.test("createLanguageModel() does not retry a 429 that says the quota is exhausted", async () => {
  const openai = liveModel("openai", [
    jsonResponse(429, { error: { type: "insufficient_quota", code: "insufficient_quota" } }),
  ]);
  const error = await failure(openai.model.generate({ prompt: "x" }));
  assert.equal(error.reason, "rate_limited");
  assert.equal(error.isRetryable, false);
  assert.equal(openai.calls.length, 1);

  const gemini = liveModel("gemini", [
    jsonResponse(429, {
      error: {
        status: "RESOURCE_EXHAUSTED",
        details: [{
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }],
        }],
      },
    }),
  ]);
  await failure(gemini.model.generate({ prompt: "x" }));
  assert.equal(gemini.calls.length, 1);

  // A per-minute quota with a RetryInfo passes by waiting: retried, as told.
  const perMinute = liveModel("gemini", [
    jsonResponse(429, {
      error: {
        status: "RESOURCE_EXHAUSTED",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            violations: [{ quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }],
          },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" },
        ],
      },
    }),
  ]);
  const limited = await failure(perMinute.model.generate({ prompt: "x" }));
  assert.equal(limited.reason, "rate_limited");
  assert.equal(perMinute.calls.length, 4);
  assert.deepEqual(perMinute.clock.sleeps, [1000, 1000, 1000]);
});

Deno.test("createLanguageModel() classifies statuses by the Labs taxonomy", async () => {
  const cases: [ProviderName, number, unknown, string, number][] = [
    ["openai", 401, { error: { message: "bad key" } }, "auth_error", 1],
    ["anthropic", 403, { type: "error", error: { type: "permission_error" } }, "auth_error", 1],
    [
      "gemini",
      400,
      { error: { status: "INVALID_ARGUMENT", details: [{ reason: "API_KEY_INVALID" }] } },
      "auth_error",
      1,
    ],
    ["openai", 400, { error: { message: "bad model" } }, "bad_request", 1],
    ["openai", 404, {}, "bad_request", 1],
    ["openai", 408, {}, "timeout", 4],
    ["anthropic", 529, { type: "error", error: { type: "overloaded_error" } }, "server_error", 4],
  ];
  for (const [provider, status, body, reason, attempts] of cases) {
    const { model, calls } = liveModel(provider, [jsonResponse(status, body)]);
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, reason, `${provider} ${status}`);
    assert.equal(error.status, status);
    assert.equal(calls.length, attempts, `${provider} ${status}`);
  }
});

Deno.test("createLanguageModel() treats malformed JSON and schema-invalid answers as bad_response", async () => {
  const malformed = liveModel("openai", [() => new Response('{"choices": [')]);
  const first = await failure(malformed.model.generate({ prompt: "x" }));
  assert.equal(first.reason, "bad_response");
  assert.match(first.detail, /^Response is not valid JSON/);
  assert.equal(malformed.calls.length, 1);

  const invalid = liveModel("openai", [
    jsonResponse(200, { choices: [{ message: { content: '{"title": 3}' } }] }),
  ]);
  const second = await failure(invalid.model.generate({
    prompt: "x",
    jsonSchema: { type: "object", properties: { title: { type: "string" } } },
  }));
  assert.equal(second.reason, "bad_response");
  assert.equal(
    second.detail,
    "Answer does not match the requested schema: /title: must be string",
  );
  assert.equal(invalid.calls.length, 1);

  const custom = liveModel("openai", [
    jsonResponse(200, { choices: [{ message: { content: '```json\n{"n": 1}\n```' } }] }),
  ]);
  const third = await failure(custom.model.generate({
    prompt: "x",
    jsonSchema: { type: "object" },
    validateJson: (value) => (value as { n: number }).n > 1 ? [] : ["/n: too small"],
  }));
  assert.match(third.detail, /\/n: too small/);
});

Deno.test("createLanguageModel() turns a fetch failure into network_error and retries", async () => {
  const { model, calls } = liveModel("openai", [
    () => Promise.reject(new TypeError("connection refused")),
  ]);
  const error = await failure(model.generate({ prompt: "x" }));
  assert.equal(error.reason, "network_error");
  assert.equal(calls.length, 4);
  assert.match(error.detail, /connection refused/);
});

Deno.test("createLanguageModel() rethrows the caller's abort without retrying", async () => {
  const controller = new AbortController();
  const never = () =>
    new Promise<Response>((_resolve, reject) => {
      setTimeout(() => controller.abort(new Error("stop")), 5);
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason));
    });
  const { model, calls } = liveModel("openai", [never]);
  await assert.rejects(model.generate({ prompt: "x", signal: controller.signal }), /stop/);
  assert.equal(calls.length, 1);
});

Deno.test("createLanguageModel() in mock mode answers from the script with the provider's name", async () => {
  const config = resolveModelConfig("gemini", { config: loadConfig(() => undefined) });
  const model = createLanguageModel(config, {
    mock: (request) => ({ echo: request.prompt }),
  });
  const result = await model.generate({ prompt: "ping", jsonSchema: { type: "object" } });
  assert.deepEqual(result.json, { echo: "ping" });
  assert.equal(result.provider, "gemini");
  assert.equal(result.mode, "mock");
  assert.equal(result.endpoint, "https://generativelanguage.googleapis.com/v1beta");
  const { deltas } = await collect(model, { prompt: "pong" });
  assert.equal(deltas.join(""), '{"echo":"pong"}');
});

function sseResponse(frames: string[]) {
  return () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const frame of frames) controller.enqueue(new TextEncoder().encode(frame));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
}

/** Runs a stream: deltas as `onTextDelta` took them, the `finish` event, or the error. */
async function collect(
  model: LanguageModel,
  request: GenerateRequest & { keepRaw?: boolean },
) {
  const deltas: string[] = [];
  let finish: StreamEvent | undefined;
  let error: unknown;
  try {
    for await (
      const event of model.stream({
        ...request,
        onTextDelta: (text) => deltas.push(text),
      })
    ) {
      finish = event;
    }
  } catch (thrown) {
    error = thrown;
  }
  return { deltas, finish, error };
}

Deno.test("stream() retries a failure before the first delta, then streams", async () => {
  const { model, calls, clock } = liveModel("openai", [
    jsonResponse(503, {}),
    sseResponse([
      'data: {"choices":[{"delta":{"content":"he"}}]}\n\n',
      'data: {"choices":[{"delta":{"content":"llo"},"finish_reason":"stop"}]}\n\n',
      'data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}\n\n',
      "data: [DONE]\n\n",
    ]),
  ]);
  const { deltas, finish, error } = await collect(model, { prompt: "x" });
  assert.equal(error, undefined);
  assert.deepEqual(deltas, ["he", "llo"]);
  assert.equal(calls.length, 2);
  assert.deepEqual(clock.sleeps, [200]);
  assert.equal(calls[1].body.stream, true);
  assert.deepEqual(calls[1].body.stream_options, { include_usage: true });
  assert.ok(finish?.type === "finish");
  assert.equal(finish.result.text, "hello");
  assert.equal(finish.result.attempts, 2);
  assert.deepEqual(finish.result.usage, { inputTokens: 1, outputTokens: 2, totalTokens: 3 });
  // Computed when first read, the same hash as ever, and serialized like any field.
  assert.equal(finish.result.responseHash, responseHash(finish.result.raw));
  assert.equal(
    JSON.parse(JSON.stringify(finish.result)).responseHash,
    responseHash(finish.result.raw),
  );
  assert.equal(finish.result.rawSize, new TextEncoder().encode(finish.result.raw).byteLength);
});

Deno.test("stream() with keepRaw false streams the same text and leaves raw empty", async () => {
  const frames = [
    'data: {"choices":[{"delta":{"content":"he"}}]}\n\n',
    'data: {"choices":[{"delta":{"content":"llo"},"finish_reason":"stop"}]}\n\n',
    "data: [DONE]\n\n",
  ];
  const kept = await collect(liveModel("openai", [sseResponse(frames)]).model, { prompt: "x" });
  const { model } = liveModel("openai", [sseResponse(frames)]);
  const { deltas, finish, error } = await collect(model, { prompt: "x", keepRaw: false });
  assert.equal(error, undefined);
  assert.deepEqual(deltas, ["he", "llo"]);
  assert.ok(finish?.type === "finish" && kept.finish?.type === "finish");
  assert.ok(kept.finish.result.raw.includes('"content":"llo"'));
  assert.equal(finish.result.text, "hello");
  assert.equal(finish.result.finishReason, "stop");
  assert.equal(finish.result.raw, "");
  assert.equal(finish.result.rawSize, 0);
});

Deno.test("stream() fails with network_error when the stream ends without its end marker", async () => {
  const { model, calls } = liveModel("anthropic", [
    sseResponse([
      'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"par"}}\n\n',
    ]),
  ]);
  const { deltas, finish, error } = await collect(model, { prompt: "x" });
  assert.deepEqual(deltas, ["par"]);
  assert.equal(finish, undefined);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.reason, "network_error");
  assert.equal(calls.length, 1, "no retry after partial output");
});

Deno.test("stream() refuses a JSON body where an event stream was asked for, without retry", async () => {
  const { model, calls } = liveModel("openai", [OPENAI_OK]);
  const { deltas, error } = await collect(model, { prompt: "x" });
  assert.deepEqual(deltas, []);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.reason, "bad_response");
  assert.match(error.detail, /^Expected an event stream, got application\/json: \{"choices"/);
  assert.equal(calls.length, 1);
});

Deno.test("stream() reports a stream cut inside an event as network_error", async () => {
  const { model } = liveModel("openai", [
    sseResponse(['data: {"choices":[{"delta":{"content":"ab"}}]}\n\ndata: {"choices":[{"del']),
  ]);
  const { deltas, error } = await collect(model, { prompt: "x" });
  assert.deepEqual(deltas, ["ab"]);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.reason, "network_error");
  assert.equal(error.detail, "Stream ended in the middle of an event (after 1 text deltas)");
});

function openAiFrames(pieces: string[]): string[] {
  return [
    ...pieces.map((piece) =>
      `data: ${
        JSON.stringify({
          id: "chatcmpl-0123456789",
          object: "chat.completion.chunk",
          model: "gpt-4o-mini-2024-07-18",
          system_fingerprint: "fp_0123456789",
          choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
        })
      }\n\n`
    ),
    "data: [DONE]\n\n",
  ];
}

Deno.test("stream() lets a long answer's envelopes pass 1 MiB but caps the answer at 1 MiB", async () => {
  // ~5,000 tokens of text: about 1.1 MiB on the wire, 25 KiB of answer.
  const pieces = Array.from({ length: 5000 }, (_, index) => ` w${index % 10}`);
  const { model } = liveModel("openai", [sseResponse(openAiFrames(pieces))]);
  const long = await collect(model, { prompt: "x" });
  assert.equal(long.error, undefined);
  assert.ok(long.finish?.type === "finish");
  assert.ok(long.finish.result.rawSize > 1024 * 1024, `raw ${long.finish.result.rawSize}`);
  assert.equal(long.finish.result.text, pieces.join(""));

  const huge = Array.from({ length: 17 }, () => "x".repeat(64 * 1024));
  const capped = liveModel("openai", [sseResponse(openAiFrames(huge))]);
  const over = await collect(capped.model, { prompt: "x" });
  assert.equal(over.deltas.length, 16);
  assert.ok(over.error instanceof ProviderError);
  assert.equal(over.error.reason, "bad_response");
  assert.match(over.error.detail, /^Streamed answer is over the 1 MiB cap/);
});
