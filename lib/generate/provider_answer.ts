/**
 * The answer syn asks of a provider, and the canned answers mock mode gives in its place.
 * Apart from the external generator (`_external_generator.ts`, loaded on first use) so that
 * the mock provider server and tests can use them without loading it.
 */
import type { ExternalEngineName, JsonObject } from "./asset.ts";
import type { RequestEnvelope } from "./envelope.ts";
import { generateDeterministic } from "./generate_deterministic.ts";

/** The JSON shape asked of providers: the spec's sections, checked loosely here and fully by normalization. */
export const ANSWER_JSON_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: {
    name: { type: "string" },
    shader: { type: "object" },
    tone: { type: "object" },
    haptic: { type: "object" },
    controls: { type: "array" },
    meta: { type: "object" },
  },
  required: ["shader", "tone", "haptic", "controls", "meta"],
});

/**
 * Prompt-dependent canned answers for mock mode, in the Labs spec's section names
 * (`controls`, `meta`), deliberately partial so normalization has work to do: each
 * engine leaves out different optional fields and Gemini sends numeric strings. Two
 * markers in the prompt make a broken answer on purpose, to try strict vs relaxed:
 * `[mock:out-of-range]` (haptic intensity 1.7) and `[mock:schema-invalid]` (a rule bundle
 * whose `created_at` is not a date-time).
 */
export function mockProviderAnswer(
  engine: ExternalEngineName,
  envelope: RequestEnvelope,
): JsonObject {
  const full = generateDeterministic(envelope.prompt, {
    seed: envelope.seed ?? 0,
    temperature: envelope.parameters.temperature,
  });
  const controls = full.control.control_parameters.map((control) => ({ ...control }));
  const answer: JsonObject = {
    name: full.name,
    shader: {
      name: full.shader.name,
      description: full.shader.description,
      fragment_shader: full.shader.fragment_shader,
      uniforms: full.shader.uniforms,
      input_parameters: full.shader.input_parameters,
    },
    tone: {
      name: full.tone.name,
      description: full.tone.description,
      synth: full.tone.synth,
      effects: full.tone.effects,
    },
    haptic: {
      name: full.haptic.name,
      description: full.haptic.description,
      device: full.haptic.device,
      input_parameters: full.haptic.input_parameters,
    },
    controls,
    meta: {
      title: full.meta_info.title,
      description: `${engine} mock answer — ${full.meta_info.description}`,
      category: "multimodal",
      complexity: full.meta_info.complexity,
      tags: [...full.meta_info.tags.filter((tag) => tag !== "generated"), engine],
    },
  };
  if (engine === "gemini") {
    // Gemini-flavoured: the intensity as a top-level numeric string, controls without labels.
    const haptic = answer.haptic as JsonObject;
    const intensity = full.haptic.input_parameters[0].default as number;
    haptic.intensity = String(intensity);
    delete haptic.input_parameters;
    answer.controls = controls.map(({ label: _label, ...rest }) => rest);
  } else if (engine === "anthropic") {
    answer.controls = { name: full.control.name, control_parameters: controls };
    answer.modulations = full.modulations;
  }
  if (envelope.prompt.includes("[mock:out-of-range]")) {
    (answer.haptic as JsonObject).intensity = 1.7;
  }
  if (envelope.prompt.includes("[mock:schema-invalid]")) {
    // A measure the schema judges (a date-time format), not a kind or a key: normalization
    // takes it, the validator service refuses it.
    answer.rule_bundle = { name: "Broken Rules", rules: [{ id: "r1" }], created_at: "yesterday" };
  }
  return answer;
}
