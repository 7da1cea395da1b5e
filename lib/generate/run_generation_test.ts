import { loadConfig } from "../core/mod.ts";
import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { readJsonl, SynError } from "../core/mod.ts";
import type { ModelConfig } from "../llm/mod.ts";
import { createExternalGenerator, type ExternalGenerator } from "./external_generator.ts";
import { mockProviderAnswer } from "./provider_answer.ts";
import { buildEnvelope } from "./envelope.ts";
import { resolveGenerateConfig } from "./generate_config.ts";
import { LabsLog } from "./labs_log.ts";
import { runBatch, runGeneration, slugOf } from "./run_generation.ts";
import { fakeValidator } from "./testdata/fake_validator.ts";
import { recordSchemas } from "./testdata/record_schemas.ts";

function setup(flags: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "syn_gen_" });
  const config = resolveGenerateConfig(flags, {
    config: loadConfig((name) => env[name]),
    cwd: dir,
  });
  let next = 0;
  return {
    dir,
    config,
    log: new LabsLog(config.logDir),
    clock: new FakeClock(Date.UTC(2025, 9, 2)),
    newTraceId: () => `00000000-0000-4000-8000-${String(++next).padStart(12, "0")}`,
    [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }),
  };
}

const mockConfig = (provider: "gemini" | "openai" | "anthropic"): ModelConfig =>
  Object.freeze({
    provider,
    model: `${provider}-test-model`,
    endpoint: `https://${provider}.invalid/v1`,
    mode: "mock",
    apiVersion: "v1",
    timeouts: { connectMs: 1000, readMs: 1000, totalMs: 1000 },
    maxRetries: 0,
    secrets: [],
  });

async function checkRecords(log: LabsLog, stream: "generator" | "external") {
  const store = await recordSchemas();
  const records = await readJsonl(log.path(stream));
  for (const record of records) {
    assert.deepEqual(store.validate(record, stream), { ok: true, errors: [] });
  }
  return records as Record<string, unknown>[];
}

Deno.test("runGeneration() validates, persists and logs a deterministic asset", async () => {
  using world = setup({ seed: 7 });
  const validator = fakeValidator();
  const outcome = await runGeneration("a pulsing blue circle", world.config, {
    ...world,
    validator,
  });
  assert.equal(outcome.status, "ok");
  assert.equal(outcome.exit_code, 0);
  assert.equal(validator.assets.length, 1);
  const written = JSON.parse(Deno.readTextFileSync(outcome.asset_path!)) as {
    meta_info: { provenance: unknown };
  };
  assert.deepEqual(written, outcome.asset);
  assert.deepEqual(written.meta_info.provenance, {
    engine: "deterministic",
    api_endpoint: null,
    api_version: "1",
    model: "syn-deterministic-1",
    parameters: { temperature: null, seed: 7 },
    trace_id: "00000000-0000-4000-8000-000000000001",
    mode: "mock",
    timestamp: "2025-10-02T00:00:00.000Z",
    response_hash: outcome.response_hash,
  });
  assert.match(outcome.response_hash!, /^[0-9a-f]{16}$/);
  const [record] = await checkRecords(world.log, "generator");
  assert.equal(record.trace_id, outcome.trace_id);
  assert.equal(record.severity, "info");
  // One word for the mode: the summary and the log say what the asset says.
  assert.equal(outcome.mode, "mock");
  assert.equal(record.mode, "mock");
  await assert.rejects(() => Deno.stat(world.log.path("external")));
});

Deno.test("runGeneration() never persists an invalid asset: strict exits 1, relaxed warns and exits 0", async () => {
  for (const strict of [true, false]) {
    using world = setup(strict ? { strict: true } : { relaxed: true });
    const validator = fakeValidator(() => ({
      ok: false,
      reason: "validation_failed",
      errors: [{ path: "/shader", msg: "must have required property 'name'" }],
    }));
    const outcome = await runGeneration("angry red fire", world.config, { ...world, validator });
    assert.equal(outcome.status, "invalid");
    assert.equal(outcome.asset_path, null);
    assert.equal(outcome.exit_code, strict ? 1 : 0);
    assert.equal(outcome.severity, strict ? "error" : "warning");
    assert.deepEqual(outcome.failure, {
      reason: "validation_failed",
      detail: "/shader must have required property 'name'",
    });
    assert.equal(validator.assets.length, 1);
    await assert.rejects(() => Deno.stat(world.config.outDir));
    const [record] = await checkRecords(world.log, "generator");
    assert.equal(record.severity, strict ? "error" : "warning");
  }
});

Deno.test("runGeneration() still calls the validator after a failed pre-flight", async () => {
  using world = setup({ engine: "gemini", relaxed: true });
  const validator = fakeValidator();
  const external = await createExternalGenerator("gemini", mockConfig("gemini"), {
    clock: world.clock,
  });
  const outcome = await runGeneration("a thing [mock:out-of-range]", world.config, {
    ...world,
    validator,
    external,
  });
  assert.equal(validator.assets.length, 1);
  assert.equal(outcome.status, "invalid");
  assert.equal(outcome.failure?.reason, "validation_failed");
  assert.match(outcome.failure!.detail, /haptic intensity must be in \[0, 1\], got 1\.7/);
  const [entry] = await checkRecords(world.log, "external");
  assert.equal(entry.severity, "warning");
  assert.equal(entry.mode, "mock");
  assert.deepEqual(entry.failure, outcome.failure);
});

Deno.test("runGeneration() logs a validator payload over 1 MiB as a structured validation failure", async () => {
  using world = setup({ engine: "openai" });
  const validator = fakeValidator(() => ({
    ok: false,
    reason: "validation_failed",
    errors: [{ path: "", msg: "payload_too_large" }],
    detail: "request is 1200000 bytes, over the 1 MiB cap",
  }));
  const external = await createExternalGenerator("openai", mockConfig("openai"), {
    clock: world.clock,
  });
  const outcome = await runGeneration("neon rain", world.config, { ...world, validator, external });
  assert.equal(outcome.exit_code, 1);
  const [entry] = await checkRecords(world.log, "external");
  assert.deepEqual(entry.failure, {
    reason: "validation_failed",
    detail: "request is 1200000 bytes, over the 1 MiB cap",
  });
  assert.deepEqual((entry.mcp_result as { errors: unknown }).errors, [{
    path: "",
    msg: "payload_too_large",
  }]);
});

Deno.test("runGeneration() with every external engine in mock mode normalizes and persists", async () => {
  for (const engine of ["gemini", "openai", "anthropic"] as const) {
    using world = setup({ engine, seed: 11 });
    const validator = fakeValidator();
    const external = await createExternalGenerator(engine, mockConfig(engine), {
      clock: world.clock,
    });
    const outcome = await runGeneration("a calm blue ocean at dusk", world.config, {
      ...world,
      validator,
      external,
    });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome.failure));
    const provenance = outcome.asset!.meta_info.provenance!;
    assert.equal(provenance.engine, engine);
    assert.equal(provenance.mode, "mock");
    assert.equal(provenance.model, `${engine}-test-model`);
    assert.deepEqual(provenance.parameters, { temperature: null, seed: 11 });
    const [entry] = await checkRecords(world.log, "external");
    assert.deepEqual(entry.provenance, provenance);
    assert.equal((entry.raw_response as { hash: string }).hash, provenance.response_hash);
    assert.equal(entry.transport, "memory");
  }
});

Deno.test("runBatch() keeps order, reuses one validator and survives a failing prompt", async () => {
  using world = setup({ engine: "openai" });
  const validator = fakeValidator();
  const external = await createExternalGenerator("openai", mockConfig("openai"), {
    clock: world.clock,
    mockAnswer: (envelope) => {
      if (envelope.prompt === "boom") throw new Error("mock exploded");
      return envelope.prompt === "junk" ? { nonsense: true } : undefined;
    },
  });
  const progress: number[] = [];
  const prompts = ["one", "boom", "junk", "four"];
  const realAnswer = await createExternalGenerator("openai", mockConfig("openai"), {
    clock: world.clock,
  });
  const outcomes = await runBatch(prompts, world.config, {
    ...world,
    validator,
    external: {
      ...external,
      generate: (prompt, ...rest) =>
        prompt === "one" || prompt === "four"
          ? realAnswer.generate(prompt, ...rest)
          : external.generate(prompt, ...rest),
    },
  }, { concurrency: 2, onProgress: (done) => void progress.push(done) });
  assert.deepEqual(outcomes.map((outcome) => outcome.prompt), prompts);
  assert.deepEqual(outcomes.map((outcome) => outcome.status), ["ok", "failed", "failed", "ok"]);
  assert.equal(outcomes[2].failure?.reason, "bad_response");
  assert.deepEqual(progress, [1, 2, 3, 4]);
  assert.equal(validator.assets.length, 2);
  const records = await checkRecords(world.log, "generator");
  assert.equal(records.length, 4);
});

Deno.test("runGeneration() fails in either mode when the validator gives no verdict, and writes nothing", async () => {
  for (const strict of [true, false]) {
    using world = setup(strict ? { strict: true } : { relaxed: true });
    const validator = fakeValidator(() => ({
      ok: false,
      reason: "transport_error",
      detail: "cannot connect to 127.0.0.1:9: Connection refused",
    }));
    const outcome = await runGeneration("angry red fire", world.config, { ...world, validator });
    assert.equal(outcome.status, "failed");
    assert.equal(outcome.exit_code, 1);
    assert.equal(outcome.severity, "error");
    assert.equal(outcome.asset_path, null);
    assert.deepEqual(outcome.failure, {
      reason: "transport_error",
      detail: "cannot connect to 127.0.0.1:9: Connection refused",
    });
    await assert.rejects(() => Deno.stat(world.config.outDir));
    const [record] = await checkRecords(world.log, "generator");
    assert.equal(record.status, "failed");
  }
});

Deno.test("runGeneration() turns an asset that cannot be written into a logged io_error", async () => {
  using world = setup({ relaxed: true });
  const outcome = await runGeneration("a pulsing blue circle", world.config, {
    ...world,
    validator: fakeValidator(),
    stageAsset: () => Promise.reject(new Error("No space left on device (os error 28)")),
  });
  assert.equal(outcome.status, "failed");
  assert.equal(outcome.exit_code, 1);
  assert.equal(outcome.asset_path, null);
  assert.equal(outcome.failure?.reason, "io_error");
  assert.match(outcome.failure!.detail, /cannot write .*pulsing-blue-circle-.*: No space left/);
  const [record] = await checkRecords(world.log, "generator");
  assert.deepEqual(record.failure, outcome.failure);
});

Deno.test("runGeneration() touches no file itself: the asset goes through the stager it is given", async () => {
  using world = setup({});
  // A folder that cannot exist (its parent is a file): any mkdir in the pipeline would fail.
  const blocker = await Deno.makeTempFile();
  const config = { ...world.config, outDir: `${blocker}/assets` };
  const staged: { path: string; text: string; committed: boolean }[] = [];
  const outcome = await runGeneration("a pulsing blue circle", config, {
    ...world,
    validator: fakeValidator(),
    stageAsset: (path, text) => {
      const entry = { path, text, committed: false };
      staged.push(entry);
      return Promise.resolve({
        commit: () => Promise.resolve(void (entry.committed = true)),
        discard: () => Promise.resolve(),
      });
    },
  });
  assert.equal(outcome.status, "ok", JSON.stringify(outcome.failure));
  assert.equal(staged.length, 1);
  assert.equal(staged[0].path, outcome.asset_path);
  assert.equal(staged[0].committed, true, "committed after the generator record");
  assert.deepEqual(JSON.parse(staged[0].text), outcome.asset);
  await Deno.remove(blocker);
});

Deno.test("the prompt is read once: features handed down win over the prompt text", async () => {
  const { extractFeatures } = await import("./_prompt_features.ts");
  const { generateDeterministic } = await import("./generate_deterministic.ts");
  const { normalizeAsset } = await import("./normalize_asset.ts");
  const features = { ...extractFeatures("a pulsing blue circle"), title: "Given Title" };
  const raw = generateDeterministic("ignored words", { seed: 1, features });
  assert.equal(raw.name, "Given Title");
  const { name: _name, meta_info: _meta, ...unnamed } = raw;
  const normalized = normalizeAsset(unnamed, { features });
  assert.equal(normalized.meta_info.title, "Given Title");
  assert.deepEqual(normalized.meta_info.tags, features.tagWords.slice(0, 8));
});

Deno.test("runGeneration() never persists a secret a provider echoes back", async () => {
  using world = setup({ engine: "openai", seed: 4 });
  const key = "sk-test-ECHOED-KEY-0123456789abcdef";
  const log = new LabsLog(world.config.logDir, [key]);
  const external = await createExternalGenerator("openai", mockConfig("openai"), {
    clock: world.clock,
    mockAnswer: (envelope) => {
      const answer = mockProviderAnswer("openai", envelope);
      (answer.meta as Record<string, unknown>).description = `made with ${key}`;
      (answer.shader as Record<string, unknown>).name = `Shader ${key}`;
      return answer;
    },
  });
  const validator = fakeValidator();
  const outcome = await runGeneration("neon rain", world.config, {
    ...world,
    log,
    validator,
    external,
  });
  assert.equal(outcome.status, "ok", JSON.stringify(outcome.failure));
  const written = Deno.readTextFileSync(outcome.asset_path!);
  assert.equal(written.includes(key), false);
  assert.match(written, /made with \*\*\*redacted\*\*\*/);
  assert.equal(JSON.stringify(validator.assets).includes(key), false);
  assert.equal(Deno.readTextFileSync(log.path("external")).includes(key), false);
});

Deno.test("runGeneration() passes --timeout-s to the provider as total, connect ≤ 5 s and read ≤ 30 s", async () => {
  const seen: unknown[] = [];
  const external: ExternalGenerator = {
    name: "openai",
    model: "m",
    endpoint: null,
    mode: "mock",
    generate: (_prompt, _seed, params) => {
      seen.push(params?.timeouts);
      return Promise.reject(
        new SynError("timeout", "Timed out", { reason: "timeout", detail: "no answer" }),
      );
    },
  };
  for (const timeoutS of [2, 100]) {
    using world = setup({ engine: "openai", timeoutS });
    const outcome = await runGeneration("x", world.config, {
      ...world,
      validator: fakeValidator(),
      external,
    });
    assert.deepEqual(outcome.failure, { reason: "timeout", detail: "no answer" });
  }
  using world = setup({ engine: "openai" });
  await runGeneration("x", world.config, { ...world, validator: fakeValidator(), external });
  assert.deepEqual(seen, [
    { totalMs: 2000, connectMs: 2000, readMs: 2000 },
    { totalMs: 100000, connectMs: 5000, readMs: 30000 },
    undefined,
  ]);
});

Deno.test("runGeneration() stores a 100 KB prompt once in the asset and nowhere in the logs", async () => {
  using world = setup();
  // Distinct words, so any stretch of it found in the file comes from the prompt.
  const prompt = Array.from({ length: 20_000 }, (_, index) => `w${index}`).join(" ").slice(
    0,
    100_000,
  );
  assert.equal(prompt.length, 100_000);
  const outcome = await runGeneration(prompt, world.config, {
    ...world,
    validator: fakeValidator(),
  });
  assert.equal(outcome.status, "ok");
  const text = Deno.readTextFileSync(outcome.asset_path!);
  assert.equal(text.split(prompt).length - 1, 1, "the whole prompt, once");
  // No second, shorter copy either: a stretch from the middle occurs once.
  const middle = prompt.slice(50_000, 50_200);
  assert.equal(text.split(middle).length - 1, 1, "a stretch of the prompt, once");
  const written = JSON.parse(text) as { meta_info: { prompt: string } };
  assert.equal(written.meta_info.prompt, prompt);
  assert.equal(Deno.readTextFileSync(world.log.path("generator")).includes(middle), false);
});

Deno.test("runGeneration() logs the seed the deterministic engine really used", async () => {
  using world = setup();
  const outcome = await runGeneration("x", world.config, { ...world, validator: fakeValidator() });
  assert.equal(outcome.asset!.meta_info.provenance!.parameters.seed, 0);
  const [record] = await checkRecords(world.log, "generator");
  assert.equal(record.seed, 0);
});

Deno.test("slugOf() keeps letters of accented words and never returns an empty name", () => {
  assert.equal(slugOf("Über Café Naïve"), "uber-cafe-naive");
  assert.equal(slugOf("  Pulsing -- Blue Circle!  "), "pulsing-blue-circle");
  assert.equal(slugOf("漢字 🎵"), "asset");
  assert.equal(slugOf("../../etc/passwd\u0000.json"), "etc-passwd-json", "no path escapes");
  assert.equal(slugOf("a".repeat(47) + " bcd").length, 47);
});

Deno.test("mock answers depend on the prompt and each engine leaves normalization work to do", async () => {
  for (const engine of ["gemini", "openai", "anthropic"] as const) {
    const external = await createExternalGenerator(engine, mockConfig(engine), {
      newTraceId: () => "t",
    });
    const calm = await external.generate("a calm blue ocean at dusk", 1);
    const angry = await external.generate("angry red fire", 1);
    assert.notEqual(calm.asset.shader.fragment_shader, angry.asset.shader.fragment_shader);
    assert.notEqual(calm.response.hash, angry.response.hash);
    assert.notEqual(calm.asset.meta_info.title, angry.asset.meta_info.title);
  }
  const envelope = buildEnvelope({
    traceId: "t",
    prompt: "angry red fire",
    seed: 1,
    model: "m",
    temperature: null,
    maxTokens: null,
  });
  const gemini = mockProviderAnswer("gemini", envelope);
  assert.equal(typeof (gemini.haptic as Record<string, unknown>).intensity, "string");
  assert.ok("controls" in gemini && "meta" in gemini && !("control" in gemini));
});
