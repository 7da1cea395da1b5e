import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { loadConfig, readJsonl, SynError } from "../core/mod.ts";
import type { ModelConfig } from "../llm/mod.ts";
import { createExternalGenerator, type ExternalGenerator } from "./external_generator.ts";
import { resolveGenerateConfig } from "./generate_config.ts";
import { LabsLog } from "./labs_log.ts";
import { runGeneration } from "./run_generation.ts";
import { fakeValidator } from "./testdata/fake_validator.ts";
import { recordSchemas } from "./testdata/record_schemas.ts";

const TRACE_ID = "00000000-0000-4000-8000-000000000001";
const NOW = Date.UTC(2025, 9, 2);

function setup(flags: Record<string, unknown>) {
  const dir = Deno.makeTempDirSync({ prefix: "syn_failure_provenance_" });
  const config = resolveGenerateConfig(flags, { config: loadConfig(() => undefined), cwd: dir });
  return {
    config,
    log: new LabsLog(config.logDir),
    clock: new FakeClock(NOW),
    newTraceId: () => TRACE_ID,
    validator: fakeValidator(),
    [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }),
  };
}

function modelConfig(mode: "mock" | "live"): ModelConfig {
  return Object.freeze({
    provider: "openai",
    model: "gpt-test",
    endpoint: "http://127.0.0.1:9/v1",
    mode,
    apiKey: mode === "live" ? "sk-test-key-000000000000" : undefined,
    apiVersion: "v1",
    timeouts: { connectMs: 1000, readMs: 1000, totalMs: 1000 },
    maxRetries: 0,
    secrets: [],
  });
}

/** The one external.jsonl record, checked against its schema. */
async function externalRecord(log: LabsLog): Promise<Record<string, unknown>> {
  const records = await readJsonl(log.path("external")) as Record<string, unknown>[];
  assert.equal(records.length, 1);
  const store = await recordSchemas();
  assert.deepEqual(store.validate(records[0], "external"), { ok: true, errors: [] });
  return records[0];
}

Deno.test("a live call that fails records what was known as provenance, not null", async () => {
  using world = setup({ engine: "openai", seed: 5, temperature: 0.4 });
  const external = await createExternalGenerator("openai", modelConfig("live"), {
    clock: world.clock,
    fetch: () =>
      Promise.resolve(
        Response.json({ error: { message: "bad key" } }, { status: 401 }),
      ),
  });
  const outcome = await runGeneration("a blue circle", world.config, { ...world, external });
  assert.equal(outcome.failure?.reason, "auth_error");
  const record = await externalRecord(world.log);
  assert.deepEqual(record.provenance, {
    engine: "openai",
    api_endpoint: "http://127.0.0.1:9/v1",
    api_version: "v1",
    model: "gpt-test",
    parameters: { temperature: 0.4, seed: 5 },
    trace_id: TRACE_ID,
    mode: "live",
    timestamp: new Date(NOW).toISOString(),
  });
  assert.ok(!JSON.stringify(record).includes("sk-test-key"));
});

Deno.test("an answer that fails normalization keeps its response hash in the provenance", async () => {
  using world = setup({ engine: "openai" });
  const external = await createExternalGenerator("openai", modelConfig("mock"), {
    clock: world.clock,
    mockAnswer: () => ({ nonsense: true }),
  });
  const outcome = await runGeneration("junk", world.config, { ...world, external });
  assert.equal(outcome.failure?.reason, "bad_response");
  const record = await externalRecord(world.log);
  const provenance = record.provenance as Record<string, unknown>;
  assert.equal(provenance.mode, "mock");
  assert.equal(provenance.api_endpoint, null);
  assert.equal(provenance.trace_id, TRACE_ID);
  assert.match(String(provenance.response_hash), /^[0-9a-f]{16}$/);
  assert.equal(provenance.response_hash, (record.raw_response as { hash: string }).hash);
});

Deno.test("a generator's failure without provenance still gets one from the run", async () => {
  using world = setup({ engine: "openai", seed: 3 });
  const external: ExternalGenerator = {
    name: "openai",
    model: "m",
    endpoint: null,
    mode: "mock",
    generate: () =>
      Promise.reject(new SynError("timeout", "Timed out", { reason: "timeout", detail: "late" })),
  };
  await runGeneration("x", world.config, { ...world, external });
  const record = await externalRecord(world.log);
  assert.deepEqual(record.provenance, {
    engine: "openai",
    api_endpoint: null,
    api_version: "unknown",
    model: "m",
    parameters: { temperature: null, seed: 3 },
    trace_id: TRACE_ID,
    mode: "mock",
    timestamp: new Date(NOW).toISOString(),
  });
});
