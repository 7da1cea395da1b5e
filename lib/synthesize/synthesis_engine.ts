/**
 * Who writes a composite tool: the offline synthesizer, or a language model through
 * `lib/llm`, with the synthesis config's `llm` keys (timeout, retries, backoff) applied.
 */
import { type BackoffOptions, loadConfig, type SynConfig, SynError } from "../core/mod.ts";
import {
  createLanguageModel,
  type LanguageModel,
  type LanguageModelDeps,
  type ModelConfig,
  type ProviderName,
  PROVIDERS,
  resolveModelConfig,
} from "../llm/mod.ts";
import type { MinedChain } from "./mine_chains.ts";
import type { SynthesizeConfig } from "./synthesize_config.ts";
import { defaultSynthesisEngine, synthesisModel, withRetryOn } from "./synthesis_model.ts";
import {
  type ChainSample,
  type SynthesisOptions,
  synthesizeDeterministic,
} from "./synthesize_deterministic.ts";
import { synthesizeWithModel } from "./synthesize_with_model.ts";
import { checkSynthesizedTool, SynthesisError, type SynthesizedTool } from "./synthesized_tool.ts";

/** Writes the composite tool of one chain from its samples. */
export interface SynthesisEngine {
  /** `deterministic` or the provider's name, kept with each tool it writes. */
  name: string;
  write(
    chain: MinedChain,
    samples: ChainSample[],
    options?: { readOnlyTools?: ReadonlySet<string> },
  ): Promise<SynthesizedTool>;
}

/** What a provider engine needs from outside. */
export interface SynthesisEngineOptions {
  /** The provider settings (keys, endpoints, LABS_EXTERNAL_LIVE); default: none set. */
  config?: Pick<SynConfig, "llm" | "secrets">;
  /** `--model`, `--endpoint`: they win over the environment. */
  model?: string;
  endpoint?: string;
  /** Builds the model; default `createLanguageModel` (tests pass a fake). */
  createModel?: (config: ModelConfig, deps: LanguageModelDeps) => LanguageModel;
}

/**
 * The engine `name` names. A provider runs in mock mode (its canned answer is the offline
 * synthesizer's tool) unless LABS_EXTERNAL_LIVE=1 and its key are set. An unknown name or
 * a provider setting that does not resolve is a `SynError` (`invalid_option` on the
 * `engine` setting, or the provider's `config_error`). No name: the engine the
 * config's `llm_model` implies (`defaultSynthesisEngine`: offline unless live).
 */
export function synthesisEngine(
  requested: string | undefined,
  config: SynthesizeConfig,
  options: SynthesisEngineOptions = {},
): SynthesisEngine {
  const live = options.config?.llm.live ?? false;
  const name = requested ?? defaultSynthesisEngine(config, { live });
  const maxParallelSteps = config.synthesis.max_parallel_steps;
  if (name === "deterministic") {
    return {
      name,
      write: (chain, samples, options = {}) =>
        writeOffline(chain, samples, { maxParallelSteps, readOnlyTools: options.readOnlyTools }),
    };
  }
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw new SynError(
      "invalid_option",
      `the engine is one of deterministic, ${PROVIDERS.join(", ")}: ${name}`,
      { option: "engine", value: name },
    );
  }
  // llm_model is the model when it is this provider's; `retry_on` limits the retries.
  const resolved = providerConfig(name as ProviderName, {
    ...options,
    model: synthesisModel(name, config, options.model),
  });
  const modelConfig = withRetryOn(withLlmKeys(resolved, config.llm), config.llm);
  const backoff = backoffOf(config.llm);
  const createModel = options.createModel ?? createLanguageModel;
  return {
    name,
    write: (chain, samples, options = {}) => {
      const readOnlyTools = options.readOnlyTools;
      const model = createModel(modelConfig, {
        mock: () => synthesizeDeterministic(chain, samples, { maxParallelSteps, readOnlyTools }),
        backoff,
      });
      return synthesizeWithModel(chain, samples, {
        model,
        maxParallelSteps,
        maxRetriesOnInvalid: config.synthesis.max_retries_on_invalid,
        readOnlyTools,
      });
    },
  };
}

/** The offline synthesizer's tool, held to the same five checks as a model's. */
async function writeOffline(
  chain: MinedChain,
  samples: ChainSample[],
  options: SynthesisOptions,
): Promise<SynthesizedTool> {
  const tool = synthesizeDeterministic(chain, samples, options);
  const problems = await checkSynthesizedTool(tool, chain.tools);
  if (problems.length) {
    throw new SynthesisError(`${chain.chain}: the tool fails its checks`, problems);
  }
  return tool;
}

function providerConfig(name: ProviderName, options: SynthesisEngineOptions): ModelConfig {
  const flags = { model: options.model, endpoint: options.endpoint };
  return resolveModelConfig(name, { config: options.config ?? loadConfig(() => undefined), flags });
}

/** The spec's `llm` keys on a model config: per-request timeout and retries. */
function withLlmKeys(
  modelConfig: ModelConfig,
  llm: SynthesizeConfig["llm"],
): ModelConfig {
  const totalMs = llm.timeout_seconds * 1000;
  const { connectMs, readMs } = modelConfig.timeouts;
  return {
    ...modelConfig,
    maxRetries: llm.max_retries,
    timeouts: {
      totalMs,
      connectMs: Math.min(connectMs, totalMs),
      readMs: Math.min(Math.max(readMs, totalMs), totalMs),
    },
  };
}

/** The spec's `llm` backoff keys as the model layer's backoff between retries. */
function backoffOf(llm: SynthesizeConfig["llm"]): BackoffOptions {
  return {
    baseMs: llm.backoff_base_ms,
    factor: llm.backoff_factor,
    capMs: Math.max(llm.backoff_base_ms, 60_000),
    jitter: 0.2,
  };
}
