import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { rejection } from "../../tests/fakes/rejection.ts";
import { loadConfig } from "../core/mod.ts";
import { createLanguageModel } from "./create_language_model.ts";
import { ProviderError } from "./provider_error.ts";
import { providerForModel } from "./provider_for_model.ts";
import { resolveModelConfig } from "./resolve_model_config.ts";
import type { ModelConfig } from "./types.ts";

const OK = () =>
  Response.json({
    choices: [{
      index: 0,
      message: { role: "assistant", content: "hello" },
      finish_reason: "stop",
    }],
  });
const status = (code: number, body: unknown = { error: { message: `status ${code}` } }) => () =>
  Response.json(body, { status: code });

function liveConfig(retryOn?: readonly number[]): ModelConfig {
  const env: Record<string, string> = {
    LABS_EXTERNAL_LIVE: "1",
    OPENAI_API_KEY: "sk-test-0123456789abcdefXYZ",
  };
  const config = resolveModelConfig("openai", { config: loadConfig((name) => env[name]) });
  return retryOn === undefined ? config : { ...config, retryOn };
}

/** A model over a fetch that answers from a list (the last repeats); counts the calls. */
function modelWith(config: ModelConfig, answers: (() => Response)[]) {
  let calls = 0;
  const fetcher = () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)]());
  const model = createLanguageModel(config, {
    fetch: fetcher as typeof fetch,
    clock: new FakeClock(Date.parse("2025-01-01T00:00:00Z")),
    random: () => 0,
  });
  return { model, calls: () => calls };
}

const SYNTHESIS_RETRY_ON = [429, 500, 502, 503];

Deno.test("retryOn: a status it does not list (504) is not retried", async () => {
  const { model, calls } = modelWith(liveConfig(SYNTHESIS_RETRY_ON), [status(504), OK]);
  const error = await rejection(model.generate({ prompt: "hi" }), ProviderError);
  assert.equal(error.reason, "server_error");
  assert.equal(error.status, 504);
  assert.equal(error.attempts, 1);
  assert.equal(calls(), 1);
});

Deno.test("retryOn: the statuses it lists are retried; without it, 504 is (the Labs rule)", async () => {
  for (const code of SYNTHESIS_RETRY_ON) {
    const { model, calls } = modelWith(liveConfig(SYNTHESIS_RETRY_ON), [status(code), OK]);
    const result = await model.generate({ prompt: "hi" });
    assert.equal(result.attempts, 2, String(code));
    assert.equal(calls(), 2);
  }
  const labs = modelWith(liveConfig(), [status(504), OK]);
  assert.equal((await labs.model.generate({ prompt: "hi" })).attempts, 2);
});

Deno.test("retryOn: a listed 4xx is retried, an exhausted quota never, a network error still is", async () => {
  const listed = modelWith(liveConfig([409]), [status(409), OK]);
  assert.equal((await listed.model.generate({ prompt: "hi" })).attempts, 2);
  const quota = modelWith(liveConfig([429]), [
    status(429, { error: { code: "insufficient_quota", message: "no quota" } }),
    OK,
  ]);
  assert.equal(
    (await rejection(quota.model.generate({ prompt: "hi" }), ProviderError)).attempts,
    1,
  );
  let calls = 0;
  const flaky = createLanguageModel(liveConfig([503]), {
    fetch: (() =>
      calls++ === 0
        ? Promise.reject(new TypeError("reset"))
        : Promise.resolve(OK())) as typeof fetch,
    clock: new FakeClock(0),
    random: () =>
      0,
  });
  assert.equal((await flaky.generate({ prompt: "hi" })).attempts, 2);
});

Deno.test("providerForModel() names the provider by the model id's family", () => {
  const cases: [string, string | undefined][] = [
    ["claude-sonnet-4-20250514", "anthropic"],
    ["Claude-3-5-haiku-latest", "anthropic"],
    ["gpt-4o-mini", "openai"],
    ["chatgpt-4o-latest", "openai"],
    ["o1", "openai"],
    ["o3-mini", "openai"],
    ["o4-mini-2025-04-16", "openai"],
    ["gemini-2.0-flash", "gemini"],
    ["llama3.2", undefined],
    ["ollama", undefined],
    ["omni", undefined],
    ["", undefined],
  ];
  for (const [model, provider] of cases) assert.equal(providerForModel(model), provider, model);
});
