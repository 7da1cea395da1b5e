/**
 * What the synthesis config's `llm_model` and `llm` keys decide for a provider engine: the
 * engine when none is named, the model, and the retry statuses. The spec: `llm_model` is
 * the "Model identifier (determines provider)"; `retry_on` lists the HTTP statuses that
 * trigger a retry (default 429, 500, 502, 503).
 */
import { SynError } from "../core/mod.ts";
import { type ModelConfig, providerForModel } from "../llm/mod.ts";
import type { SynthesizeConfig } from "./synthesize_config.ts";

/**
 * The engine when `--engine` is not given. Offline by default: without
 * `LABS_EXTERNAL_LIVE=1` a provider would only give its mock answer, which is the offline
 * synthesizer's tool, so that is the engine. Live, the provider `llm_model` names; a model
 * id that names none is an `invalid_option` error on the `engine` setting.
 */
export function defaultSynthesisEngine(
  config: SynthesizeConfig,
  options: { live: boolean },
): string {
  if (!options.live) return "deterministic";
  const model = config.synthesis.llm_model;
  const provider = providerForModel(model);
  if (provider) return provider;
  throw new SynError(
    "invalid_option",
    `llm_model names no provider (claude-*, gpt-*, o*, gemini-*): ${model}; name an engine (openai-compatible for a local server)`,
    { option: "engine", value: model },
  );
}

/**
 * The model of a provider engine: `--model`, else `llm_model` when it belongs to that
 * provider (any id that names no provider belongs to `openai-compatible`), else
 * `undefined` (the provider's `<PREFIX>_MODEL`, then its default).
 */
export function synthesisModel(
  engine: string,
  config: SynthesizeConfig,
  flagModel: string | undefined,
): string | undefined {
  if (flagModel?.trim()) return flagModel;
  const model = config.synthesis.llm_model;
  const provider = providerForModel(model);
  const belongs = provider === engine || (provider === undefined && engine === "openai-compatible");
  return belongs ? model : undefined;
}

/** The spec's `retry_on` on a model config: only those statuses are retried. */
export function withRetryOn(modelConfig: ModelConfig, llm: SynthesizeConfig["llm"]): ModelConfig {
  return { ...modelConfig, retryOn: Object.freeze([...llm.retry_on]) };
}
