/**
 * The reference data as provider answers: the sections of every schema 0.7.3 example (the
 * conformance set in `../shared` and our own `schemas/examples/`) are sent by the local
 * mock provider server over each provider's wire, then normalized, validated by the
 * validator service and persisted. Whatever the schema accepts must never be a
 * `bad_response`, so no change to normalization can reject the reference data again.
 */
import { loadConfig } from "../lib/core/mod.ts";
import assert from "node:assert/strict";
import { FakeClock } from "./fakes/fake_clock.ts";
import {
  createExternalGenerator,
  type JsonObject,
  LabsLog,
  type RequestEnvelope,
  resolveGenerateConfig,
  runGeneration,
} from "../lib/generate/mod.ts";
import { resolveModelConfig } from "../lib/llm/mod.ts";
import { connectValidator } from "../lib/mcp/mod.ts";
import { type MockProvider, startMockLlmServer } from "./fakes/mock_llm_server.ts";
import { CONFORMANCE_EXAMPLES, sharedMissing, sharedPath } from "./fakes/shared.ts";
import { startCountingValidator, tempDir } from "./generate_fakes.ts";

const PROVIDERS: readonly MockProvider[] = ["openai", "gemini", "anthropic"];
const KEYS = {
  OPENAI_API_KEY: "sk-test-reference-0123456789",
  GEMINI_API_KEY: "gemini-test-reference-0123456789",
  ANTHROPIC_API_KEY: "sk-ant-test-reference-0123456789",
};
const OWN_EXAMPLES = new URL("../schemas/examples/", import.meta.url);

/** A component example's section of the asset, found by the keys only it has. */
function sectionOf(example: JsonObject): string | undefined {
  if ("fragment_shader" in example) return "shader";
  if ("synth" in example) return "tone";
  if ("device" in example) return "haptic";
  if ("control_parameters" in example) return "control";
  if ("rules" in example) return "rule_bundle";
  if ("modulations" in example && !("shader" in example)) return "modulations";
  return undefined;
}

/**
 * The example as a provider would answer with it: a full asset as it is, a component as
 * its section of an asset. A rule bundle or modulations alone is no asset (the Labs
 * contract refuses an answer without one of its five sections), so those come with a meta.
 */
function answerOf(example: JsonObject): JsonObject {
  const { $schema: _marker, ...rest } = example;
  const section = sectionOf(rest);
  if (section === undefined) return rest;
  const name = String(rest.name);
  if (section === "modulations") {
    return { name, meta: { title: name }, modulations: rest.modulations };
  }
  if (section === "rule_bundle") return { name, meta: { title: name }, rule_bundle: rest };
  return { name, [section]: rest };
}

async function readExamples(folder: string): Promise<Map<string, JsonObject>> {
  const examples = new Map<string, JsonObject>();
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  for (const name of names.sort()) {
    examples.set(name, JSON.parse(await Deno.readTextFile(`${folder}/${name}`)));
  }
  return examples;
}

/** One world: the mock provider answering with `answers[prompt]`, a real validator over TCP. */
async function withWorld(
  answers: Map<string, JsonObject>,
  fn: (
    run: (provider: MockProvider, prompt: string) => ReturnType<typeof runGeneration>,
    server: Awaited<ReturnType<typeof startMockLlmServer>>,
  ) => Promise<void>,
) {
  using work = tempDir();
  await using server = await startMockLlmServer({
    answer: (context) => {
      const envelope = JSON.parse(context.prompt) as RequestEnvelope;
      return answers.get(envelope.prompt) ?? { error: `no answer for ${envelope.prompt}` };
    },
  });
  const validatorServer = await startCountingValidator();
  const validator = await connectValidator({
    config: loadConfig((name) => validatorServer.env[name]),
    selfCommand: [],
  });
  try {
    const urls = {
      openai: server.openaiUrl,
      gemini: server.geminiUrl,
      anthropic: server.anthropicUrl,
    };
    let next = 0;
    const run = async (provider: MockProvider, prompt: string) => {
      const env: Record<string, string> = {
        LABS_EXTERNAL_LIVE: "1",
        ...KEYS,
        [`${provider.toUpperCase()}_ENDPOINT`]: urls[provider],
      };
      const clock = new FakeClock(Date.UTC(2025, 9, 2));
      const external = await createExternalGenerator(
        provider,
        resolveModelConfig(provider, { config: loadConfig((name) => env[name]) }),
        { clock, random: () => 0 },
      );
      const config = resolveGenerateConfig({ engine: provider, strict: true }, {
        config: loadConfig(() => undefined),
        cwd: work.path,
      });
      return await runGeneration(prompt, config, {
        validator,
        external,
        clock,
        log: new LabsLog(config.logDir),
        newTraceId: () => `00000000-0000-4000-8000-${String(++next).padStart(12, "0")}`,
      });
    };
    await fn(run, server);
  } finally {
    await validator.close();
    await validatorServer.close();
  }
}

async function assertPersisted(
  outcome: Awaited<ReturnType<typeof runGeneration>>,
  example: JsonObject,
  label: string,
): Promise<JsonObject> {
  assert.equal(outcome.status, "ok", `${label}: ${JSON.stringify(outcome.failure)}`);
  assert.deepEqual(outcome.mcp_result, { ok: true, errors: [] }, label);
  const persisted = JSON.parse(await Deno.readTextFile(outcome.asset_path!)) as JsonObject;
  // The example's own content arrived, not a baseline stand-in.
  const answer = answerOf(example);
  for (const section of ["shader", "tone", "haptic"] as const) {
    const given = answer[section] as JsonObject | undefined;
    if (given?.name !== undefined) {
      assert.equal((persisted[section] as JsonObject).name, given.name, `${label} ${section}`);
    }
  }
  return persisted;
}

async function assertAllPersisted(examples: Map<string, JsonObject>) {
  const answers = new Map([...examples].map(([name, example]) => [name, answerOf(example)]));
  await withWorld(answers, async (run, server) => {
    for (const provider of PROVIDERS) {
      for (const [name, example] of examples) {
        const before = server.requests.length;
        const outcome = await run(provider, name);
        assert.equal(server.requests.length, before + 1, `${provider} ${name}: one request`);
        assert.equal(server.requests.at(-1)!.provider, provider);
        await assertPersisted(outcome, example, `${provider} ${name}`);
      }
    }
  });
}

Deno.test({
  name:
    "every conformance example, sent as a provider answer over each wire, is normalized, validated and persisted",
  ignore: sharedMissing(CONFORMANCE_EXAMPLES),
  fn: async () => {
    const examples = await readExamples(sharedPath(CONFORMANCE_EXAMPLES));
    assert.ok(examples.size >= 15, `${examples.size} examples`);
    await assertAllPersisted(examples);
  },
});

Deno.test("every own example, sent as a provider answer over each wire, is normalized, validated and persisted", async () => {
  const examples = await readExamples(OWN_EXAMPLES.pathname);
  assert.ok(examples.size >= 7, `${examples.size} examples`);
  await assertAllPersisted(examples);
});

Deno.test("a hex-colour answer after 429, 429 is persisted with the colour as floats in [0, 1]", async () => {
  const answer: JsonObject = {
    name: "Grey Room",
    shader: {
      name: "Grey Room",
      fragment_shader: "void main() {}",
      uniforms: [
        { name: "u_backgroundColor", type: "vec3", stage: "fragment", default: "#1a1a1a" },
        { name: "u_tint", type: "vec4", stage: "fragment", default: "#ff000080" },
      ],
    },
  };
  await withWorld(new Map([["grey room", answer]]), async (run, server) => {
    for (const provider of PROVIDERS) {
      const before = server.requests.length;
      server.script("429", "429", "ok");
      const outcome = await run(provider, "grey room");
      assert.equal(server.requests.length - before, 3, `${provider}: two retries, one answer`);
      const persisted = await assertPersisted(outcome, answer, provider);
      const uniforms = (persisted.shader as { uniforms: JsonObject[] }).uniforms;
      const byName = new Map(uniforms.map((uniform) => [uniform.name, uniform.default]));
      assert.deepEqual(byName.get("u_backgroundColor"), [26 / 255, 26 / 255, 26 / 255], provider);
      assert.deepEqual(byName.get("u_tint"), [1, 0, 0, 128 / 255], provider);
    }
  });
});
