/**
 * @module
 * One provider layer for every LLM call: a provider-neutral `LanguageModel` (JSON or text
 * generation, and streaming), over `fetch` for OpenAI, any OpenAI-compatible server,
 * Gemini and Anthropic, plus a scripted mock. The HTTP rules of the Labs spec live here:
 * 256 KiB request and 1 MiB response caps, connect/read/total timeouts, the error
 * taxonomy (`ProviderError.reason`) and retries with backoff and server hints.
 *
 * ```ts
 * import { loadConfig } from "../core/mod.ts";
 * import { createLanguageModel, resolveModelConfig } from "./mod.ts";
 * const config = resolveModelConfig("openai", { config: loadConfig(() => undefined) });
 * const model = createLanguageModel(config, {
 *   mock: (request) => ({ title: `A scene for ${request.prompt}` }),
 * });
 * const result = await model.generate({
 *   prompt: "a red pulse",
 *   jsonSchema: { type: "object", properties: { title: { type: "string" } } },
 * });
 * result.json; // { title: "A scene for a red pulse" } (mock mode unless LABS_EXTERNAL_LIVE=1)
 * ```
 */
export type {
  ChatMessage,
  FailureReason,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  MockScript,
  ModelConfig,
  ProviderName,
  StreamEvent,
  StreamRequest,
  Timeouts,
  Usage,
} from "./types.ts";
export { PROVIDERS } from "./types.ts";
export { type AttemptError, ProviderError, type ProviderErrorOptions } from "./provider_error.ts";
export { resolveModelConfig, type ResolveModelConfigOptions } from "./resolve_model_config.ts";
export { createLanguageModel, type LanguageModelDeps } from "./create_language_model.ts";
export {
  type MockLanguageModel,
  mockLanguageModel,
  type MockLanguageModelOptions,
} from "./mock_language_model.ts";
export { type SseEvent } from "./sse.ts";
export { exampleFromSchema } from "./example_from_schema.ts";
export { providerForModel } from "./provider_for_model.ts";
