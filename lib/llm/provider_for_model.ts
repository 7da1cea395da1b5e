import type { ProviderName } from "./types.ts";

/**
 * The provider a model id names, by its family prefix (the synthesis spec's `llm_model`:
 * "Model identifier (determines provider)"): `claude-*` is Anthropic's, `gpt-*`,
 * `chatgpt-*` and the `o1`, `o3`, `o4-mini`… reasoning models are OpenAI's, `gemini-*`
 * is Gemini's. Any other id (a local model behind an OpenAI-compatible server) names none.
 */
export function providerForModel(model: string): Exclude<ProviderName, "mock"> | undefined {
  const id = model.trim().toLowerCase();
  if (id.startsWith("claude-")) return "anthropic";
  if (/^(?:gpt-|chatgpt-|o\d+(?:$|-))/.test(id)) return "openai";
  if (id.startsWith("gemini-")) return "gemini";
  return undefined;
}
