import { loadConfig } from "../core/mod.ts";
import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { resolveGenerateConfig, resolveLogDir } from "./generate_config.ts";

const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);
const cwd = "/home/user/project";

Deno.test("resolveGenerateConfig() takes strictness from flag, then LABS_FAIL_FAST, then default strict", () => {
  const resolve = (flags: { strict?: boolean; relaxed?: boolean }, env: Record<string, string>) => {
    const config = resolveGenerateConfig(flags, { config: envOf(env), cwd });
    return [config.strict, config.sources.strict];
  };
  assert.deepEqual(resolve({}, {}), [true, "default"]);
  assert.deepEqual(resolve({}, { LABS_FAIL_FAST: "0" }), [false, "env"]);
  assert.deepEqual(resolve({}, { LABS_FAIL_FAST: "1" }), [true, "env"]);
  assert.deepEqual(resolve({ strict: true }, { LABS_FAIL_FAST: "0" }), [true, "flag"]);
  assert.deepEqual(resolve({ relaxed: true }, { LABS_FAIL_FAST: "1" }), [false, "flag"]);
  assert.throws(
    () => resolve({ strict: true, relaxed: true }, {}),
    new SynError("invalid_option", "strict and relaxed exclude each other", {
      options: ["strict", "relaxed"],
    }),
  );
  assert.throws(
    () => resolve({}, { LABS_FAIL_FAST: "maybe" }),
    (error) =>
      error instanceof SynError && error.code === "config_error" &&
      /LABS_FAIL_FAST must be 1/.test(error.message),
  );
});

Deno.test("resolveGenerateConfig() names the setting of a bad value in data, never a flag in words", () => {
  const options = { config: envOf({}), cwd };
  for (
    const [flags, option] of [
      [{ engine: "ollama" }, "engine"],
      [{ temperature: 2.5 }, "temperature"],
    ] as const
  ) {
    assert.throws(
      () => resolveGenerateConfig(flags, options),
      (error) =>
        error instanceof SynError && error.code === "invalid_option" &&
        error.data.option === option && !error.message.includes("--"),
    );
  }
});

Deno.test("resolveGenerateConfig() resolves log and output folders flag > env > default against cwd", () => {
  const none = resolveGenerateConfig({}, { config: envOf({}), cwd });
  assert.equal(none.logDir, "/home/user/project/meta/output/labs");
  assert.equal(none.outDir, "/home/user/project/meta/output/assets");
  const env = resolveGenerateConfig({}, {
    config: envOf({ LABS_LOG_DIR: "logs", LABS_OUTPUT_DIR: "/abs/out" }),
    cwd,
  });
  assert.deepEqual([env.logDir, env.outDir, env.sources.logDir], [
    "/home/user/project/logs",
    "/abs/out",
    "env",
  ]);
  const flag = resolveGenerateConfig({ logDir: "/flag/logs", out: "o" }, {
    config: envOf({ LABS_LOG_DIR: "logs" }),
    cwd,
  });
  assert.deepEqual([flag.logDir, flag.outDir, flag.sources.logDir], [
    "/flag/logs",
    "/home/user/project/o",
    "flag",
  ]);
});

Deno.test("resolveGenerateConfig() freezes the result and checks the engine", () => {
  const config = resolveGenerateConfig({ engine: "gemini", seed: 3 }, { config: envOf({}), cwd });
  assert.equal(config.engine, "gemini");
  assert.equal(config.seed, 3);
  assert.ok(Object.isFrozen(config));
  assert.throws(
    () => resolveGenerateConfig({ engine: "gpt5" }, { config: envOf({}), cwd }),
    /the engine is one of deterministic, /,
  );
  assert.throws(
    () => resolveGenerateConfig({ engine: "openai-compatible" }, { config: envOf({}), cwd }),
    /openai-compatible \(an OpenAI-compatible server is the openai engine, with OPENAI_ENDPOINT/,
  );
  assert.equal(resolveGenerateConfig({}, { config: envOf({}), cwd }).engine, "deterministic");
});

Deno.test("resolveLogDir() resolves the log root alone, ignoring LABS_FAIL_FAST", () => {
  const env = envOf({ LABS_LOG_DIR: "env-logs", LABS_FAIL_FAST: "not-a-value" });
  assert.equal(resolveLogDir(undefined, { config: env, cwd }), "/home/user/project/env-logs");
  assert.equal(resolveLogDir("/flag", { config: env, cwd }), "/flag");
  assert.equal(resolveLogDir(undefined, { config: envOf({}), cwd }), `${cwd}/meta/output/labs`);
});

Deno.test("resolveGenerateConfig() drops a trailing slash from folders", () => {
  const config = resolveGenerateConfig({ out: "assets/", logDir: "/var/log/syn//" }, {
    config: loadConfig(() => undefined),
    cwd: "/home/user/project/",
  });
  assert.equal(config.outDir, "/home/user/project/assets");
  assert.equal(config.logDir, "/var/log/syn");
});
