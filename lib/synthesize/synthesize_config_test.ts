import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
} from "../../tests/fakes/synthesis_corpus.ts";
import { loadConfig, SynError } from "../core/mod.ts";
import {
  createLanguageModel,
  type LanguageModelDeps,
  mockLanguageModel,
  type ModelConfig,
  ProviderError,
} from "../llm/mod.ts";
import { mineChains } from "./mine_chains.ts";
import { synthesisEngine } from "./synthesis_engine.ts";
import { DEFAULT_SYNTHESIZE_CONFIG, parseSynthesizeConfig } from "./synthesize_config.ts";
import { retrieveSamples, synthesizeDeterministic } from "./synthesize_deterministic.ts";

async function chainAndSamples() {
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const sessions = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  const [chain] = mineChains(sessions, { minLength: 2 });
  return { chain, samples: await retrieveSamples(store, chain) };
}

const LIVE = loadConfig((name) =>
  ({
    LABS_EXTERNAL_LIVE: "1",
    OPENAI_API_KEY: "sk-test-0123456789abcdefXYZ",
    ANTHROPIC_API_KEY: "anthropic-test-key-0123",
  } as Record<string, string>)[name]
);

Deno.test("syn.jsonc accepts and keeps the spec's retry keys, retry_on with them", () => {
  const config = parseSynthesizeConfig(
    `{"huginn": {"llm": {
      // the spec's "Retry and Rate Limiting" table
      "retry_on": [429, 503], "max_retries": 5, "backoff_base_ms": 250,
      "backoff_factor": 3, "timeout_seconds": 30}}}`,
    "syn.jsonc",
  );
  assert.deepEqual(config.llm, {
    retry_on: [429, 503],
    max_retries: 5,
    backoff_base_ms: 250,
    backoff_factor: 3,
    timeout_seconds: 30,
  });
  assert.deepEqual(DEFAULT_SYNTHESIZE_CONFIG.llm.retry_on, [429, 500, 502, 503]);
  assert.deepEqual(parseSynthesizeConfig("{}", "syn.jsonc").llm.retry_on, [429, 500, 502, 503]);
  for (const bad of ['"429"', "[200]", "[600]", "[429.5]", "{}", "null", "[[429]]"]) {
    assert.throws(
      () => parseSynthesizeConfig(`{"llm": {"retry_on": ${bad}}}`, "syn.jsonc"),
      (error) =>
        error instanceof SynError && /"llm\.retry_on" has a wrong value/.test(error.message),
      bad,
    );
  }
  assert.throws(
    () => parseSynthesizeConfig(`{"synthesis": {"llm_model": "two words"}}`, "syn.jsonc"),
    /"synthesis\.llm_model" has a wrong value/,
  );
});

/** An engine over a live OpenAI model whose fetch answers from a list; counts the calls. */
async function liveEngine(
  jsonc: string,
  answers: ((tool: unknown) => Response)[],
) {
  const { chain, samples } = await chainAndSamples();
  const tool = synthesizeDeterministic(chain, samples, { maxParallelSteps: 3 });
  const clock = new FakeClock(0);
  let calls = 0;
  const fetcher = () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)](tool));
  const engine = synthesisEngine("openai", parseSynthesizeConfig(jsonc, "syn.jsonc"), {
    config: LIVE,
    createModel: (config, deps) =>
      createLanguageModel(config, {
        ...deps,
        fetch: fetcher as typeof fetch,
        clock,
        random: () => 0,
      }),
  });
  return { write: () => engine.write(chain, samples), calls: () => calls, clock };
}

const answer = (tool: unknown) =>
  Response.json({
    choices: [{
      index: 0,
      message: { role: "assistant", content: JSON.stringify(tool) },
      finish_reason: "stop",
    }],
  });
const gatewayTimeout = () => Response.json({ error: { message: "gateway" } }, { status: 504 });
const unavailable = () => Response.json({ error: { message: "busy" } }, { status: 503 });

Deno.test("synthesis retries only the retry_on statuses: 504 is not retried by default", async () => {
  const refused = await liveEngine("{}", [gatewayTimeout, answer]);
  const error = await refused.write().then(() => undefined, (thrown) => thrown);
  assert.ok(error instanceof ProviderError, String(error));
  assert.equal(error.status, 504);
  assert.equal(error.attempts, 1);
  assert.equal(refused.calls(), 1);

  const listed = await liveEngine(`{"llm": {"retry_on": [504]}}`, [gatewayTimeout, answer]);
  assert.equal((await listed.write()).tool_id, "kb.search-then-kb.fetch");
  assert.equal(listed.calls(), 2);
});

Deno.test("synthesis honours max_retries and the backoff keys between retry_on statuses", async () => {
  const engine = await liveEngine(
    `{"llm": {"max_retries": 2, "backoff_base_ms": 250, "backoff_factor": 3}}`,
    [unavailable],
  );
  const error = await engine.write().then(() => undefined, (thrown) => thrown);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.attempts, 3);
  assert.deepEqual(engine.clock.sleeps, [250, 750]);
});

/** The engine and model a configuration gives, without calling anything. */
function built(
  requested: string | undefined,
  changes: { llm_model?: string },
  options: { live?: boolean; model?: string } = {},
) {
  const seen: ModelConfig[] = [];
  const engine = synthesisEngine(requested, synthesizeConfig({ synthesis: changes }), {
    config: options.live ? LIVE : loadConfig(() => undefined),
    model: options.model,
    createModel: (config: ModelConfig, deps: LanguageModelDeps) => {
      seen.push(config);
      return mockLanguageModel(deps.mock);
    },
  });
  return { engine, seen };
}

Deno.test("llm_model picks the engine when none is named: offline unless live, then its provider", async () => {
  const { chain, samples } = await chainAndSamples();
  // Offline (no LABS_EXTERNAL_LIVE): the offline synthesizer, whatever the model.
  assert.equal(built(undefined, {}).engine.name, "deterministic");
  assert.equal(built(undefined, { llm_model: "gpt-4o" }).engine.name, "deterministic");
  // Live: the spec's default model is Anthropic's.
  const claude = built(undefined, {}, { live: true });
  assert.equal(claude.engine.name, "anthropic");
  await claude.engine.write(chain, samples);
  assert.equal(claude.seen[0].model, "claude-sonnet-4-20250514");
  assert.equal(claude.seen[0].mode, "live");
  assert.deepEqual(claude.seen[0].retryOn, [429, 500, 502, 503]);
  const gpt = built(undefined, { llm_model: "gpt-4o" }, { live: true });
  assert.equal(gpt.engine.name, "openai");
  await gpt.engine.write(chain, samples);
  assert.equal(gpt.seen[0].model, "gpt-4o");
  assert.throws(
    () => built(undefined, { llm_model: "llama3.2" }, { live: true }),
    (error) =>
      error instanceof SynError && error.code === "invalid_option" &&
      error.data.option === "engine" && /llm_model names no provider/.test(error.message),
  );
});

Deno.test("llm_model is the model of the engine it belongs to; --model wins", async () => {
  const { chain, samples } = await chainAndSamples();
  const cases: [string, string, string | undefined, string][] = [
    ["anthropic", "claude-sonnet-4-20250514", undefined, "claude-sonnet-4-20250514"],
    ["anthropic", "claude-sonnet-4-20250514", "claude-test", "claude-test"],
    ["openai", "claude-sonnet-4-20250514", undefined, "gpt-4o-mini"],
    ["openai", "o3-mini", undefined, "o3-mini"],
    ["gemini", "gemini-2.5-pro", undefined, "gemini-2.5-pro"],
    ["openai-compatible", "llama3.2:8b", undefined, "llama3.2:8b"],
  ];
  for (const [engine, llmModel, flag, expected] of cases) {
    const made = built(engine, { llm_model: llmModel }, { model: flag });
    await made.engine.write(chain, samples);
    assert.equal(made.seen[0].model, expected, `${engine} ${llmModel} ${flag}`);
  }
});
