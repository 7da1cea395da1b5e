/**
 * Live smoke tests against the real providers. Ignored unless LABS_EXTERNAL_LIVE=1 and
 * the provider's key are set; the reason is printed once per provider.
 */
import { loadConfig } from "../lib/core/mod.ts";
import assert from "node:assert/strict";
import { createLanguageModel, type ProviderName, resolveModelConfig } from "../lib/llm/mod.ts";

const env = (name: string): string | undefined => {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: stay skipped
  }
};

function liveSkipReason(provider: ProviderName): string | undefined {
  const key = `${provider.toUpperCase()}_API_KEY`;
  if (env("LABS_EXTERNAL_LIVE") !== "1") return "LABS_EXTERNAL_LIVE is not 1";
  if (!env(key)) return `${key} is not set`;
  return undefined;
}

function ignoreUnlessLive(provider: ProviderName): boolean {
  const reason = liveSkipReason(provider);
  if (reason) console.warn(`skipping live ${provider} smoke test: ${reason}`);
  return reason !== undefined;
}

for (const provider of ["openai", "gemini", "anthropic"] as const) {
  Deno.test({
    name: `live ${provider}: a JSON answer and a stream`,
    ignore: ignoreUnlessLive(provider),
    fn: async () => {
      const model = createLanguageModel(resolveModelConfig(provider, { config: loadConfig(env) }));
      assert.equal(model.mode, "live");
      const result = await model.generate({
        prompt: "Give a short title for a calm blue visual scene.",
        jsonSchema: {
          type: "object",
          properties: { title: { type: "string" } },
          required: ["title"],
          additionalProperties: false,
        },
        maxTokens: 200,
        temperature: 0,
      });
      assert.equal(typeof (result.json as { title: unknown }).title, "string");
      assert.equal(result.mode, "live");
      const deltas: string[] = [];
      let finalText = "";
      const request = {
        prompt: "Count from 1 to 5.",
        maxTokens: 50,
        onTextDelta: (text: string) => deltas.push(text),
      };
      for await (const event of model.stream(request)) finalText = event.result.text;
      assert.ok(deltas.length > 0);
      assert.equal(deltas.join(""), finalText);
    },
  });
}
