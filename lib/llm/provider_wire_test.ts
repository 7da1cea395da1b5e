/**
 * The Labs v0.3.4 test matrix for this layer, over real HTTP on 127.0.0.1 against
 * tests/fakes/mock_llm_server.ts, for every provider's wire format.
 */
import { loadConfig } from "../core/mod.ts";
import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import {
  createLanguageModel,
  type GenerateRequest,
  type LanguageModel,
  ProviderError,
  resolveModelConfig,
  type StreamEvent,
} from "./mod.ts";
import { type MockProvider, startMockLlmServer } from "../../tests/fakes/mock_llm_server.ts";
import { rejection } from "../../tests/fakes/rejection.ts";

const PROVIDERS: readonly MockProvider[] = ["openai", "gemini", "anthropic"];
const KEYS: Record<string, string> = {
  OPENAI_API_KEY: "sk-test-openai-0123456789abcdef",
  GEMINI_API_KEY: "test-gemini-key-0123456789",
  ANTHROPIC_API_KEY: "test-anthropic-key-0123456789",
};
const SCHEMA = {
  type: "object",
  properties: { title: { type: "string" }, intensity: { type: "number", minimum: 0, maximum: 1 } },
  required: ["title", "intensity"],
  additionalProperties: false,
};
/** Small limits so the timeout tests take milliseconds, not seconds. */
const FAST = { connectMs: 150, readMs: 150, totalMs: 2000 };

type Server = Awaited<ReturnType<typeof startMockLlmServer>>;

function baseUrl(server: Server, provider: MockProvider): string {
  return { openai: server.openaiUrl, gemini: server.geminiUrl, anthropic: server.anthropicUrl }[
    provider
  ];
}

function modelFor(
  server: Server,
  provider: MockProvider,
  options: { endpoint?: string; env?: Record<string, string> } = {},
) {
  const prefix = provider.toUpperCase();
  const env: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    ...KEYS,
    [`${prefix}_ENDPOINT`]: options.endpoint ?? baseUrl(server, provider),
    ...options.env,
  };
  const config = resolveModelConfig(provider, { config: loadConfig((name) => env[name]) });
  const clock = new FakeClock(Date.parse("2025-01-01T00:00:00Z"));
  const model = createLanguageModel(config, { clock, random: () => 0 });
  return { model, clock };
}

const failure = (promise: Promise<unknown>) => rejection(promise, ProviderError);

/** Runs a stream: deltas as `onTextDelta` took them, the `finish` event, or the error. */
async function collect(model: LanguageModel, request: GenerateRequest) {
  const deltas: string[] = [];
  let finish: StreamEvent | undefined;
  let error: unknown;
  const onTextDelta = (text: string) => {
    assert.equal(finish, undefined, "no delta after finish");
    deltas.push(text);
  };
  try {
    for await (const event of model.stream({ ...request, onTextDelta })) finish = event;
  } catch (thrown) {
    error = thrown;
  }
  return { deltas, finish, error };
}

const JSON_REQUEST: GenerateRequest = { prompt: "a calm blue scene", jsonSchema: SCHEMA };

Deno.test("mock server: endpoint precedence flag > env > default reaches the right server", async () => {
  await using server = await startMockLlmServer();
  await using other = await startMockLlmServer();
  const env: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    ...KEYS,
    OPENAI_ENDPOINT: other.openaiUrl,
  };
  const fromFlag = resolveModelConfig("openai", {
    flags: { endpoint: server.openaiUrl },
    config: loadConfig((name) => env[name]),
  });
  await createLanguageModel(fromFlag).generate({ prompt: "flag" });
  const fromEnv = resolveModelConfig("openai", { config: loadConfig((name) => env[name]) });
  await createLanguageModel(fromEnv).generate({ prompt: "env" });
  assert.equal(server.requests.length, 1);
  assert.equal(other.requests.length, 1);
  assert.equal(
    resolveModelConfig("openai", { config: loadConfig(() => undefined) }).endpoint,
    "https://api.openai.com/v1",
  );
});

Deno.test("mock server: Authorization only in live mode with a key", async () => {
  await using server = await startMockLlmServer();
  const { model } = modelFor(server, "openai");
  await model.generate({ prompt: "x" });
  assert.equal(server.requests[0].headers.authorization, `Bearer ${KEYS.OPENAI_API_KEY}`);
  assert.equal(server.requests[0].headers["content-type"], "application/json");

  // openai needs a key for live mode; openai-compatible does not, and sends none.
  assert.throws(
    () => modelFor(server, "openai", { env: { OPENAI_API_KEY: "" } }),
    /LABS_EXTERNAL_LIVE=1 and OPENAI_API_KEY/,
  );
  const compatibleEnv: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    OPENAI_ENDPOINT: server.openaiUrl,
  };
  const compatible = createLanguageModel(
    resolveModelConfig("openai-compatible", { config: loadConfig((name) => compatibleEnv[name]) }),
  );
  await compatible.generate({ prompt: "x" });
  assert.equal(server.requests.at(-1)?.headers.authorization, undefined);

  const mockEnv: Record<string, string> = { ...KEYS, OPENAI_ENDPOINT: server.openaiUrl };
  const mock = createLanguageModel(
    resolveModelConfig("openai", { config: loadConfig((name) => mockEnv[name]) }),
  );
  await mock.generate({ prompt: "x" });
  assert.equal(server.requests.length, 2, "mock mode sends nothing");
});

Deno.test("mock server: provider key headers", async () => {
  await using server = await startMockLlmServer();
  await modelFor(server, "gemini").model.generate({ prompt: "x" });
  await modelFor(server, "anthropic").model.generate({ prompt: "x" });
  const [gemini, anthropic] = server.requests;
  assert.equal(gemini.headers["x-goog-api-key"], KEYS.GEMINI_API_KEY);
  assert.equal(gemini.headers.authorization, undefined);
  assert.equal(anthropic.headers["x-api-key"], KEYS.ANTHROPIC_API_KEY);
  assert.equal(anthropic.headers["anthropic-version"], "2023-06-01");
  assert.equal(anthropic.path, "/anthropic/v1/messages");
});

for (const provider of PROVIDERS) {
  Deno.test(`mock server ${provider}: a JSON answer is parsed, checked and hashed`, async () => {
    await using server = await startMockLlmServer({
      answer: (context) => ({ title: `for ${context.prompt}`, intensity: 0.4 }),
    });
    const { model } = modelFor(server, provider);
    const result = await model.generate(JSON_REQUEST);
    assert.deepEqual(result.json, { title: "for a calm blue scene", intensity: 0.4 });
    assert.equal(result.provider, provider);
    assert.equal(result.mode, "live");
    assert.equal(result.attempts, 1);
    assert.match(result.responseHash, /^[0-9a-f]{16}$/);
    assert.ok(result.usage?.totalTokens && result.usage.totalTokens > 0);
  });

  Deno.test(`mock server ${provider}: 401 and 403 are auth_error without retry`, async () => {
    await using server = await startMockLlmServer();
    const { model, clock } = modelFor(server, provider);
    for (const fault of ["401", "403"]) {
      server.script(fault);
      const error = await failure(model.generate({ prompt: "x" }));
      assert.equal(error.reason, "auth_error");
      assert.equal(error.status, Number(fault));
      assert.equal(error.attempts, 1);
      assert.equal(error.attemptErrors.length, 1);
    }
    assert.equal(server.requests.length, 2);
    assert.deepEqual(clock.sleeps, []);
  });

  Deno.test(`mock server ${provider}: 429 retries then rate_limited`, async () => {
    await using server = await startMockLlmServer();
    const { model, clock } = modelFor(server, provider);
    server.script("429", "429", "429", "429");
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "rate_limited");
    assert.equal(error.status, 429);
    assert.equal(error.attempts, 4);
    assert.equal(server.requests.length, 4);
    assert.deepEqual(clock.sleeps, [200, 400, 800]);
    assert.deepEqual(error.attemptErrors.map((entry) => entry.reason), [
      "rate_limited",
      "rate_limited",
      "rate_limited",
      "rate_limited",
    ]);
  });

  Deno.test(`mock server ${provider}: 429 with a server hint waits as told`, async () => {
    await using server = await startMockLlmServer();
    const { model, clock } = modelFor(server, provider);
    server.script("429-retry-after:2", "429-retry-after-ms:1500", "429-retry-delay:0.5s", "ok");
    const result = await model.generate({ prompt: "x" });
    assert.equal(result.attempts, 4);
    assert.deepEqual(clock.sleeps, [2000, 1500, 500]);
  });

  Deno.test(`mock server ${provider}: a quota 429 is not retried`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("429-quota", "429-quota", "429-quota", "429-quota");
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "rate_limited");
    // Anthropic has no quota-exhausted 429 (billing problems are 400s): it retries.
    assert.equal(server.requests.length, provider === "anthropic" ? 4 : 1);
  });

  Deno.test(`mock server ${provider}: 500 and 503 retry then server_error`, async () => {
    await using server = await startMockLlmServer();
    const { model, clock } = modelFor(server, provider);
    server.script("500", "503", "500", "503");
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "server_error");
    assert.equal(error.status, 503);
    assert.deepEqual(error.attemptErrors.map((entry) => entry.status), [500, 503, 500, 503]);
    assert.deepEqual(clock.sleeps, [200, 400, 800]);
    server.script("503", "ok");
    assert.equal((await model.generate({ prompt: "x" })).attempts, 2);
  });

  Deno.test(`mock server ${provider}: a hang retries then timeout`, async () => {
    await using server = await startMockLlmServer();
    const { model, clock } = modelFor(server, provider);
    server.script("hang", "hang", "hang", "hang");
    const error = await failure(model.generate({ prompt: "x", timeouts: FAST }));
    assert.equal(error.reason, "timeout");
    assert.equal(error.attempts, 4);
    assert.match(error.detail, /No response headers within 150 ms/);
    assert.deepEqual(clock.sleeps, [200, 400, 800]);
    assert.deepEqual(
      error.attemptErrors.map((entry) => [entry.attempt, entry.reason, entry.delayMs]),
      [[1, "timeout", 200], [2, "timeout", 400], [3, "timeout", 800], [4, "timeout", undefined]],
    );
  });

  Deno.test(`mock server ${provider}: a body that stalls is a timeout`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("stall", "ok");
    const result = await model.generate({ prompt: "x", timeouts: FAST });
    assert.equal(result.attempts, 2);
    server.script("stall", "stall", "stall", "stall");
    const error = await failure(model.generate({ prompt: "x", timeouts: FAST }));
    assert.equal(error.reason, "timeout");
    assert.match(error.detail, /No response data for 150 ms/);
  });

  Deno.test(`mock server ${provider}: a connection reset is a retried network_error`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("reset", "reset", "reset", "reset");
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "network_error");
    assert.equal(error.attempts, 4);
  });

  Deno.test(`mock server ${provider}: malformed JSON is bad_response without retry`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("malformed");
    const error = await failure(model.generate({ prompt: "x" }));
    assert.equal(error.reason, "bad_response");
    assert.equal(error.attempts, 1);
    assert.equal(server.requests.length, 1);
    server.script("malformed");
    const streamed = await collect(model, { prompt: "x" });
    assert.ok(streamed.error instanceof ProviderError);
    assert.equal(streamed.error.reason, "bad_response");
    assert.match(streamed.error.detail, /^Stream event is not a JSON object/);
    assert.equal(server.requests.length, 2);
  });

  Deno.test(`mock server ${provider}: a schema-invalid answer is bad_response without retry`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("schema-invalid");
    const error = await failure(model.generate(JSON_REQUEST));
    assert.equal(error.reason, "bad_response");
    assert.match(error.detail, /does not match the requested schema/);
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`mock server ${provider}: bodies over 1 MiB are bad_response, declared or not`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    server.script("oversized");
    const declared = await failure(model.generate({ prompt: "x" }));
    assert.equal(declared.reason, "bad_response");
    assert.match(declared.detail, /over the 1 MiB cap: Content-Length/);
    server.script("oversized-chunked");
    const counted = await failure(model.generate({ prompt: "x" }));
    assert.equal(counted.reason, "bad_response");
    assert.match(counted.detail, /over the 1 MiB cap: more than 1048576 bytes/);
    assert.equal(server.requests.length, 2);
    for (const fault of ["oversized", "oversized-chunked"]) {
      server.script(fault);
      const { deltas, error } = await collect(model, { prompt: "x" });
      assert.deepEqual(deltas, []);
      assert.ok(error instanceof ProviderError);
      assert.equal(error.reason, "bad_response");
      assert.equal(error.detail, "Stream event is over the 1 MiB cap");
      assert.equal(error.attempts, 1);
    }
  });

  Deno.test(`mock server ${provider}: requests over 256 KiB never leave`, async () => {
    await using server = await startMockLlmServer();
    const { model } = modelFor(server, provider);
    const error = await failure(model.generate({ prompt: "x".repeat(300 * 1024) }));
    assert.equal(error.reason, "bad_request");
    assert.equal(server.requests.length, 0);
  });

  Deno.test(`mock server ${provider}: streamed deltas concatenate to the final text, in order`, async () => {
    const answer = "One two three four five six seven eight nine ten eleven twelve.";
    await using server = await startMockLlmServer({ answer: () => answer, chunkSize: 5 });
    const { model } = modelFor(server, provider);
    const { deltas, finish, error } = await collect(model, { prompt: "count" });
    assert.equal(error, undefined);
    assert.ok(finish);
    assert.ok(deltas.length >= 10);
    assert.equal(deltas.join(""), answer);
    assert.equal(finish.result.text, answer);
    const generated = await model.generate({ prompt: "count" });
    assert.equal(generated.text, finish.result.text, "identity: stream == generate");
    assert.ok(finish.result.usage?.outputTokens);
    assert.equal(server.requests[0].stream, true);
  });

  Deno.test(`mock server ${provider}: onTextDelta takes every delta as it is decoded, and only finish is yielded`, async () => {
    const answer = "One two three four five six seven eight nine ten eleven twelve.";
    await using server = await startMockLlmServer({ answer: () => answer, chunkSize: 5 });
    const { model } = modelFor(server, provider);
    const taken: string[] = [];
    const yielded: StreamEvent[] = [];
    let takenAfterFinish = 0;
    const request = {
      prompt: "count",
      onTextDelta(text: string) {
        taken.push(text);
        if (yielded.length) takenAfterFinish++;
      },
    };
    for await (const event of model.stream(request)) yielded.push(event);
    assert.deepEqual(yielded.map((event) => event.type), ["finish"], "only finish is yielded");
    assert.ok(taken.length >= 10);
    assert.equal(taken.join(""), answer);
    assert.equal(takenAfterFinish, 0, "every delta comes before finish");
    const [finish] = yielded;
    assert.equal(finish.type === "finish" && finish.result.text, answer);
  });

  Deno.test(`mock server ${provider}: a streamed JSON answer is parsed at the end`, async () => {
    await using server = await startMockLlmServer({
      answer: () => ({ title: "streamed", intensity: 1 }),
    });
    const { model } = modelFor(server, provider);
    const { deltas, finish } = await collect(model, JSON_REQUEST);
    assert.ok(deltas.length > 1);
    assert.deepEqual(finish?.result.json, { title: "streamed", intensity: 1 });
  });

  for (const fault of ["stall", "reset", "stream-error"]) {
    const reason = { stall: "timeout", reset: "network_error", "stream-error": "server_error" }[
      fault
    ];
    Deno.test(`mock server ${provider}: stream ${fault} gives partial text, then ${reason}`, async () => {
      const answer = "abcdefghijklmnopqrstuvwxyz";
      await using server = await startMockLlmServer({ answer: () => answer, chunkSize: 4 });
      const { model } = modelFor(server, provider);
      server.script(fault);
      const { deltas, finish, error } = await collect(
        model,
        { prompt: "x", timeouts: FAST },
      );
      assert.deepEqual(deltas, ["abcd", "efgh"]);
      assert.equal(finish, undefined);
      assert.ok(error instanceof ProviderError);
      assert.equal(error.reason, reason);
      assert.equal(error.attempts, 1, "no retry after partial output");
      assert.equal(server.requests.length, 1);
    });
  }

  Deno.test(`mock server ${provider}: a stream failing before any delta is retried`, async () => {
    await using server = await startMockLlmServer({ answer: () => "fine" });
    const { model, clock } = modelFor(server, provider);
    server.script("503", "429-retry-after:1", "ok");
    const { deltas, finish } = await collect(model, { prompt: "x" });
    assert.equal(deltas.join(""), "fine");
    assert.equal(finish?.result.attempts, 3);
    assert.deepEqual(clock.sleeps, [200, 1000]);
  });
}

Deno.test("mock server openai-compatible: no key, and streamed deltas concatenate to the final text", async () => {
  const answer = "Ollama, vLLM and llama.cpp speak the OpenAI wire format.";
  await using server = await startMockLlmServer({ answer: () => answer, chunkSize: 3 });
  const env: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    OPENAI_ENDPOINT: server.openaiUrl,
  };
  const model = createLanguageModel(
    resolveModelConfig("openai-compatible", { config: loadConfig((name) => env[name]) }),
  );
  const { deltas, finish, error } = await collect(model, { prompt: "x", maxTokens: 20 });
  assert.equal(error, undefined);
  assert.ok(deltas.length > 10);
  assert.equal(deltas.join(""), answer);
  assert.equal(finish?.result.text, answer);
  assert.equal(finish?.result.provider, "openai-compatible");
  assert.equal(server.requests[0].headers.authorization, undefined);
  assert.equal((server.requests[0].body as { max_tokens: number }).max_tokens, 20);
});

Deno.test("mock server: a stream that keeps trickling ends at the total timeout", async () => {
  await using server = await startMockLlmServer({
    answer: () => "x".repeat(400),
    chunkSize: 1,
    frameDelayMs: 10,
  });
  for (const provider of PROVIDERS) {
    const { model } = modelFor(server, provider);
    const { deltas, finish, error } = await collect(
      model,
      { prompt: "x", timeouts: { connectMs: 2000, readMs: 2000, totalMs: 150 } },
    );
    assert.ok(deltas.length > 0 && deltas.length < 400, `${provider}: ${deltas.length} deltas`);
    assert.equal(finish, undefined);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.reason, "timeout", provider);
    assert.match(error.detail, /^Request took longer than 150 ms \(after \d+ text deltas\)$/);
  }
});

Deno.test("mock server: Gemini's 400 API_KEY_INVALID is auth_error", async () => {
  await using server = await startMockLlmServer();
  const { model } = modelFor(server, "gemini");
  server.script("invalid-key");
  const error = await failure(model.generate({ prompt: "x" }));
  assert.equal(error.reason, "auth_error");
  assert.equal(error.status, 400);
  assert.equal(server.requests.length, 1);
});

Deno.test("mock server: faults by path prefix and by header", async () => {
  await using server = await startMockLlmServer();
  const { model } = modelFor(server, "openai", { endpoint: server.faultUrl("openai", "401") });
  const error = await failure(model.generate({ prompt: "x" }));
  assert.equal(error.reason, "auth_error");
  assert.equal(server.requests[0].path, "/openai/v1/chat/completions");
  const response = await fetch(`${server.openaiUrl}/chat/completions`, {
    method: "POST",
    headers: { "x-mock-fault": "503", "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
  });
  assert.equal(response.status, 503);
  await response.body?.cancel();
});

Deno.test("mock server: a closed port is a network_error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const env: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    ...KEYS,
    OPENAI_ENDPOINT: `http://127.0.0.1:${port}/v1`,
  };
  const clock = new FakeClock();
  const model = createLanguageModel(
    resolveModelConfig("openai", { config: loadConfig((name) => env[name]) }),
    {
      clock,
      random: () => 0,
    },
  );
  const error = await failure(model.generate({ prompt: "x" }));
  assert.equal(error.reason, "network_error");
  assert.equal(error.attempts, 4);
  assert.deepEqual(clock.sleeps, [200, 400, 800]);
});
