import assert from "node:assert/strict";
import { anthropicWire } from "./_anthropic_wire.ts";
import { geminiWire } from "./_gemini_wire.ts";
import { openAiWire } from "./_openai_wire.ts";
import type { ModelConfig } from "./types.ts";

const KEY = "sk-test-0123456789abcdefXYZ";

function config(provider: ModelConfig["provider"], mode: "mock" | "live"): ModelConfig {
  return {
    provider,
    model: "m",
    endpoint: "http://127.0.0.1:9",
    mode,
    apiKey: KEY,
    apiVersion: "v1",
    timeouts: { connectMs: 1, readMs: 1, totalMs: 1 },
    maxRetries: 0,
    secrets: [KEY],
  };
}

Deno.test("wires send the key only in live mode, even when a mock config carries one", () => {
  const cases = [
    [openAiWire, "openai", "authorization"],
    [anthropicWire, "anthropic", "x-api-key"],
    [geminiWire, "gemini", "x-goog-api-key"],
  ] as const;
  for (const [wire, provider, header] of cases) {
    for (const stream of [false, true]) {
      const live = wire.buildRequest(config(provider, "live"), { prompt: "x" }, stream);
      assert.ok(String(live.headers[header]).includes(KEY), `${provider} live sends ${header}`);
      const mock = wire.buildRequest(config(provider, "mock"), { prompt: "x" }, stream);
      assert.equal(mock.headers[header], undefined, `${provider} mock must not send ${header}`);
      assert.ok(!JSON.stringify(mock).includes(KEY), `${provider} mock request carries the key`);
    }
  }
});
