import assert from "node:assert/strict";
import { loadConfig, SynError } from "../core/mod.ts";
import { type LanguageModelDeps, mockLanguageModel, type ModelConfig } from "../llm/mod.ts";
import {
  memoryStoreWith,
  searchFetchSessions,
  synthesizeConfig,
} from "../../tests/fakes/synthesis_corpus.ts";
import { mineChains } from "./mine_chains.ts";
import { synthesisEngine } from "./synthesis_engine.ts";
import { retrieveSamples } from "./synthesize_deterministic.ts";
import { checkSynthesizedTool } from "./synthesized_tool.ts";

async function chainAndSamples() {
  await using store = await memoryStoreWith(searchFetchSessions(3));
  const sessions = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  const [chain] = mineChains(sessions, { minLength: 2 });
  return { chain, samples: await retrieveSamples(store, chain) };
}

Deno.test("synthesisEngine('deterministic') writes a tool that passes the five checks", async () => {
  const { chain, samples } = await chainAndSamples();
  const engine = synthesisEngine("deterministic", synthesizeConfig());
  const tool = await engine.write(chain, samples);
  assert.equal(engine.name, "deterministic");
  assert.equal(tool.tool_id, "kb.search-then-kb.fetch");
  assert.deepEqual(await checkSynthesizedTool(tool, chain.tools), []);
});

Deno.test("synthesisEngine() refuses a name that is neither deterministic nor a provider", () => {
  assert.throws(
    () => synthesisEngine("llama", synthesizeConfig()),
    new SynError(
      "invalid_option",
      "the engine is one of deterministic, openai, anthropic, gemini, openai-compatible: llama",
      { option: "engine", value: "llama" },
    ),
  );
});

Deno.test("synthesisEngine() gives a provider the llm keys: timeout, retries, backoff", async () => {
  const built: { config: ModelConfig; deps: LanguageModelDeps }[] = [];
  const config = synthesizeConfig({
    llm: { timeout_seconds: 5, max_retries: 1, backoff_base_ms: 250, backoff_factor: 3 },
  });
  const engine = synthesisEngine("anthropic", config, {
    model: "claude-test",
    createModel: (modelConfig, deps) => {
      built.push({ config: modelConfig, deps });
      return mockLanguageModel(deps.mock);
    },
  });
  const { chain, samples } = await chainAndSamples();
  const tool = await engine.write(chain, samples);
  assert.equal(engine.name, "anthropic");
  assert.equal(tool.tool_id, "kb.search-then-kb.fetch");
  const [{ config: modelConfig, deps }] = built;
  assert.equal(modelConfig.mode, "mock");
  assert.equal(modelConfig.model, "claude-test");
  assert.equal(modelConfig.maxRetries, 1);
  assert.equal(modelConfig.timeouts.totalMs, 5000);
  assert.equal(modelConfig.timeouts.readMs, 5000);
  assert.ok(modelConfig.timeouts.connectMs <= 5000);
  assert.deepEqual(deps.backoff, { baseMs: 250, factor: 3, capMs: 60_000, jitter: 0.2 });
});

Deno.test("synthesisEngine() reads the provider's settings from the configuration it is given", () => {
  const config = loadConfig((name) =>
    ({ LABS_EXTERNAL_LIVE: "1" } as Record<string, string>)[name]
  );
  assert.throws(
    () => synthesisEngine("openai", synthesizeConfig(), { config }),
    (error) =>
      error instanceof SynError && error.code === "config_error" &&
      /OPENAI_API_KEY is not set/.test(error.message),
  );
  // Without a configuration, nothing is set: mock mode, no key needed.
  assert.equal(synthesisEngine("openai", synthesizeConfig()).name, "openai");
});
