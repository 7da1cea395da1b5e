import assert from "node:assert/strict";
import { loadConfig, SynError } from "../core/mod.ts";
import { apiVersionOf, DEFAULT_TIMEOUTS, resolveModelConfig } from "./resolve_model_config.ts";

function envOf(values: Record<string, string>) {
  return loadConfig((name) => values[name]);
}

Deno.test("resolveModelConfig() takes the endpoint and model from flag, then env, then default", () => {
  const env = envOf({
    OPENAI_ENDPOINT: "http://env.example/v1/",
    OPENAI_MODEL: "env-model",
  });
  const fromFlags = resolveModelConfig("openai", {
    flags: { endpoint: "http://flag.example/v1", model: "flag-model" },
    config: env,
  });
  assert.equal(fromFlags.endpoint, "http://flag.example/v1");
  assert.equal(fromFlags.model, "flag-model");
  const fromEnv = resolveModelConfig("openai", { config: env });
  assert.equal(fromEnv.endpoint, "http://env.example/v1");
  assert.equal(fromEnv.model, "env-model");
  const defaults = resolveModelConfig("openai", { config: envOf({}) });
  assert.equal(defaults.endpoint, "https://api.openai.com/v1");
  assert.equal(defaults.model, "gpt-4o-mini");
});

Deno.test("resolveModelConfig() knows each provider's variables and defaults", () => {
  const env = envOf({ GEMINI_MODEL: "gemini-x", ANTHROPIC_ENDPOINT: "https://proxy.example/v1" });
  const gemini = resolveModelConfig("gemini", { config: env });
  assert.equal(gemini.endpoint, "https://generativelanguage.googleapis.com/v1beta");
  assert.equal(gemini.model, "gemini-x");
  assert.equal(gemini.apiVersion, "v1beta");
  const anthropic = resolveModelConfig("anthropic", { config: env });
  assert.equal(anthropic.endpoint, "https://proxy.example/v1");
  assert.equal(anthropic.model, "claude-sonnet-4-5");
  assert.equal(anthropic.apiVersion, "2023-06-01");
  const compatible = resolveModelConfig("openai-compatible", {
    config: envOf({ OPENAI_ENDPOINT: "http://127.0.0.1:8080/v1" }),
  });
  assert.equal(compatible.endpoint, "http://127.0.0.1:8080/v1");
  assert.deepEqual(compatible.timeouts, DEFAULT_TIMEOUTS);
});

Deno.test("resolveModelConfig() is mock by default, even with a key", () => {
  const config = resolveModelConfig("openai", { config: envOf({ OPENAI_API_KEY: "sk-abcdefgh" }) });
  assert.equal(config.mode, "mock");
  assert.equal(config.apiKey, undefined);
  assert.deepEqual(config.secrets, ["sk-abcdefgh"]);
  assert.ok(Object.isFrozen(config));
});

Deno.test("resolveModelConfig() is live with LABS_EXTERNAL_LIVE=1 and the key", () => {
  const config = resolveModelConfig("gemini", {
    config: envOf({ LABS_EXTERNAL_LIVE: "1", GEMINI_API_KEY: "gemini-secret" }),
  });
  assert.equal(config.mode, "live");
  assert.equal(config.apiKey, "gemini-secret");
  const forcedMock = resolveModelConfig("gemini", {
    flags: { live: false },
    config: envOf({ LABS_EXTERNAL_LIVE: "1", GEMINI_API_KEY: "gemini-secret" }),
  });
  assert.equal(forcedMock.mode, "mock");
});

Deno.test("resolveModelConfig() refuses live without a key, naming both variables", () => {
  for (const provider of ["openai", "gemini", "anthropic"] as const) {
    const prefix = provider.toUpperCase();
    assert.throws(
      () => resolveModelConfig(provider, { config: envOf({ LABS_EXTERNAL_LIVE: "1" }) }),
      (error: unknown) =>
        error instanceof SynError && error.code === "config_error" &&
        error.message.includes("LABS_EXTERNAL_LIVE=1") &&
        error.message.includes(`${prefix}_API_KEY`),
    );
  }
  const compatible = resolveModelConfig("openai-compatible", {
    config: envOf({ LABS_EXTERNAL_LIVE: "1" }),
  });
  assert.equal(compatible.mode, "live");
  assert.equal(compatible.apiKey, undefined);
});

Deno.test("resolveModelConfig() reads OPENAI_TEMPERATURE and rejects bad values", () => {
  const env = envOf({ OPENAI_TEMPERATURE: "0.7" });
  assert.equal(resolveModelConfig("openai", { config: env }).temperature, 0.7);
  assert.equal(resolveModelConfig("gemini", { config: env }).temperature, undefined);
  assert.throws(
    () => resolveModelConfig("openai", { config: envOf({ OPENAI_TEMPERATURE: "hot" }) }),
    /OPENAI_TEMPERATURE must be a number from 0 to 2: hot/,
  );
});

Deno.test("resolveModelConfig() rejects endpoints that are not http(s) URLs", () => {
  assert.throws(
    () => resolveModelConfig("openai", { flags: { endpoint: "file:///etc" }, config: envOf({}) }),
    /Endpoint must use http or https: --endpoint/,
  );
  assert.throws(
    () => resolveModelConfig("openai", { config: envOf({ OPENAI_ENDPOINT: "not a url" }) }),
    /Endpoint is not a URL: OPENAI_ENDPOINT/,
  );
});

Deno.test("resolveModelConfig() refuses credentials and fragments in an endpoint, keeps a query", () => {
  for (const endpoint of ["https://me:hunter22@api.example/v1", "https://token@api.example/v1"]) {
    assert.throws(
      () => resolveModelConfig("openai", { flags: { endpoint }, config: envOf({}) }),
      (error: unknown) =>
        error instanceof Error &&
        error.message === "Endpoint must not contain a user name or password: --endpoint" &&
        !JSON.stringify(error).includes("hunter22"),
    );
  }
  assert.throws(
    () =>
      resolveModelConfig("gemini", { config: envOf({ GEMINI_ENDPOINT: "https://g.example/#x" }) }),
    /Endpoint must not have a #fragment: GEMINI_ENDPOINT/,
  );
  const config = resolveModelConfig("openai", {
    config: envOf({ OPENAI_ENDPOINT: "https://gw.example/openai//?api-version=2024-10-21" }),
  });
  assert.equal(config.endpoint, "https://gw.example/openai?api-version=2024-10-21");
});

Deno.test("resolveModelConfig() refuses a key in --endpoint: keys come from the environment only", () => {
  for (
    const endpoint of ["https://g.example/v1beta?key=AIzaSECRET", "https://a.example/v1?api-key=S3"]
  ) {
    assert.throws(
      () => resolveModelConfig("gemini", { flags: { endpoint }, config: envOf({}) }),
      (error: unknown) =>
        error instanceof Error &&
        error.message ===
          "Endpoint must not carry a key (keys come from the environment): --endpoint" &&
        !JSON.stringify(error).includes("S3"),
    );
  }
  // The environment may (the key is masked wherever the endpoint is shown).
  const config = resolveModelConfig("gemini", {
    config: envOf({ GEMINI_ENDPOINT: "https://g.example/v1beta?key=AIzaSECRET" }),
  });
  assert.equal(config.endpoint, "https://g.example/v1beta?key=AIzaSECRET");
});

Deno.test("apiVersionOf() finds the version segment of an endpoint", () => {
  assert.equal(apiVersionOf("openai", "https://api.openai.com/v1"), "v1");
  assert.equal(apiVersionOf("openai-compatible", "http://127.0.0.1:11434"), "unknown");
  assert.equal(apiVersionOf("gemini", "https://x.example/v1alpha/"), "v1alpha");
});

Deno.test("resolveModelConfig() refuses a live key an HTTP header cannot carry", () => {
  for (const key of ["sk-…", "sk-abc def", "sk-abc\ndef"]) {
    assert.throws(
      () =>
        resolveModelConfig("openai", {
          config: envOf({ LABS_EXTERNAL_LIVE: "1", OPENAI_API_KEY: key }),
        }),
      (error: unknown) =>
        error instanceof SynError && error.code === "config_error" &&
        error.message.includes("OPENAI_API_KEY") && !error.message.includes(key),
    );
  }
  // In mock mode the key is never sent, so it is not checked.
  const mock = resolveModelConfig("openai", { config: envOf({ OPENAI_API_KEY: "sk-…" }) });
  assert.equal(mock.mode, "mock");
});
