import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { loadSchemaStore } from "../schema/mod.ts";
import { CONFORMANCE_SCHEMAS, sharedMissing, sharedPath } from "../../tests/fakes/shared.ts";
import type { JsonObject } from "./asset.ts";
import { canonicalBaseline } from "./canonical_baseline.ts";
import { createExternalGenerator } from "./external_generator.ts";
import { normalizeAsset } from "./normalize_asset.ts";
import { preflightAsset } from "./preflight_asset.ts";

/** A minimal answer in the Labs spec's section names. */
function answer(): JsonObject {
  return {
    shader: { fragment_shader: "uniform float u_px; uniform float u_py; void main() {}" },
    tone: { synth: { type: "Tone.FMSynth" } },
    haptic: { intensity: 0.4 },
    controls: [],
    meta: { title: "Tiny" },
  };
}

function issuesOf(fn: () => unknown): { path: string; msg: string }[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof SynError);
    assert.equal(error.code, "bad_response");
    return error.data.issues as { path: string; msg: string }[];
  }
  assert.fail("expected a bad_response");
}

Deno.test("normalizeAsset() maps controls → control and meta → meta_info, filling baseline defaults", () => {
  const asset = normalizeAsset(answer(), { prompt: "a tiny thing" });
  const baseline = canonicalBaseline();
  assert.equal(asset.control.name, baseline.control.name);
  assert.equal(asset.shader.vertex_shader, baseline.shader.vertex_shader);
  assert.deepEqual(asset.shader.uniforms, baseline.shader.uniforms);
  assert.equal(asset.tone.name, baseline.tone.name);
  assert.deepEqual(
    (asset.tone.synth.options as JsonObject).envelope,
    (baseline.tone.synth.options as JsonObject).envelope,
  );
  assert.equal(asset.haptic.input_parameters[0].parameter, "haptic.intensity");
  assert.equal(asset.haptic.input_parameters[0].default, 0.4);
  assert.equal(asset.meta_info.category, "multimodal");
  assert.equal(asset.meta_info.title, "Tiny");
  assert.equal(asset.name, "Tiny");
  assert.equal(asset.meta_info.description, "a tiny thing");
  assert.deepEqual(asset.meta_info.tags, ["tiny", "thing"]);
  assert.equal("controls" in asset, false);
  assert.equal("meta" in asset, false);
  const parameters = asset.control.control_parameters.map((control) => [
    control.parameter,
    control.mappings[0].action.axis,
    Math.sign(control.mappings[0].action.sensitivity),
  ]);
  assert.deepEqual(parameters, [["shader.u_px", "mouse.x", 1], ["shader.u_py", "mouse.y", -1]]);
});

Deno.test("normalizeAsset() rejects unknown keys, wrong types and missing required fields", () => {
  assert.deepEqual(issuesOf(() => normalizeAsset({ ...answer(), extra: 1 })), [
    { path: "", msg: "unknown field 'extra'" },
  ]);
  const wrong = answer();
  // The schema types the synth as an object and a shader's name as a string.
  (wrong.tone as JsonObject).synth = "Tone.Synth";
  (wrong.shader as JsonObject).name = 7;
  (wrong.haptic as JsonObject).intensity = true;
  assert.deepEqual(issuesOf(() => normalizeAsset(wrong)), [
    { path: "/haptic/intensity", msg: "expected a number, got boolean" },
    { path: "/shader/name", msg: "expected a string, got number" },
    { path: "/tone/synth", msg: "expected an object, got string" },
  ]);
  // What the schema accepts is never an issue: an unknown synth type or a volume in words
  // (tone.schema.json types the synth only as an object) is the critic's call.
  const banjo = answer();
  (banjo.tone as JsonObject).synth = { type: "Tone.Banjo", options: { volume: "loud" } };
  const loud = normalizeAsset(banjo).tone.synth;
  assert.equal(loud.type, "Tone.Banjo");
  assert.equal((loud.options as JsonObject).volume, "loud");
  const missing = answer();
  delete (missing.shader as JsonObject).fragment_shader;
  delete missing.tone;
  // A missing section is filled from the baseline; a required field inside a section the
  // answer did give is still missing.
  assert.deepEqual(issuesOf(() => normalizeAsset(missing)), [
    { path: "/shader", msg: "missing required field 'fragment_shader'" },
  ]);
  const control = answer();
  control.controls = [{ parameter: "shader.u_r", mappings: [{ action: { axis: "mouse.z" } }] }];
  assert.deepEqual(issuesOf(() => normalizeAsset(control)), [
    { path: "/controls/0/mappings/0/action", msg: "missing required field 'sensitivity'" },
    {
      path: "/controls/0/mappings/0/action/axis",
      msg: 'must be one of mouse.x, mouse.y, mouse.wheel, got "mouse.z"',
    },
  ]);
  assert.equal(issuesOf(() => normalizeAsset([]))[0].msg, "expected an object, got array");
  const forged = answer();
  (forged.meta as JsonObject).provenance = { engine: "forged" };
  assert.deepEqual(issuesOf(() => normalizeAsset(forged)), [{
    path: "/meta",
    msg: "field 'provenance' is written by syn, not the answer",
  }]);
});

Deno.test("normalizeAsset() coerces numeric strings only where a number fits", () => {
  const input = answer();
  (input.haptic as JsonObject).intensity = " 0.75 ";
  input.controls = [{
    parameter: "shader.u_r",
    label: "Radius",
    default: "0.5",
    min: "0.1",
    max: "2",
    mappings: [{ action: { axis: "mouse.wheel", sensitivity: "-1e-2" } }],
  }];
  const asset = normalizeAsset(input);
  assert.equal(asset.haptic.input_parameters[0].default, 0.75);
  const radius = asset.control.control_parameters.find((c) => c.parameter === "shader.u_r")!;
  assert.equal(radius.min, 0.1);
  assert.equal(radius.max, 2);
  assert.equal(radius.mappings[0].action.sensitivity, -0.01);
  assert.deepEqual(radius.mappings[0].combo, { wheel: true });
  // A control's default may be a string; "0.5" becomes a number once the type is numeric.
  assert.equal(radius.type, "float");
  assert.equal(radius.default, 0.5);
  const typed = answer();
  typed.controls = [
    { parameter: "tone.mode", type: "string", default: "0.5", mappings: [] },
    { parameter: "tone.steps", type: "int", default: "3", mappings: [] },
    { parameter: "tone.half", type: "int", default: "2.5", mappings: [] },
  ];
  (typed.tone as JsonObject).input_parameters = [{ parameter: "volume", default: "-12" }];
  const typedAsset = normalizeAsset(typed);
  const defaults = Object.fromEntries(
    typedAsset.control.control_parameters.map((control) => [control.parameter, control.default]),
  );
  assert.deepEqual(
    [defaults["tone.mode"], defaults["tone.steps"], defaults["tone.half"]],
    ["0.5", 3, "2.5"],
  );
  assert.equal((typedAsset.tone.input_parameters as JsonObject[])[0].default, -12);
  const bad = answer();
  (bad.haptic as JsonObject).intensity = "0.7 or so";
  assert.deepEqual(issuesOf(() => normalizeAsset(bad)), [
    { path: "/haptic/intensity", msg: "expected a number, got string" },
  ]);
});

Deno.test("normalizeAsset() never follows URLs or $ref and survives hostile keys", () => {
  const input = answer();
  (input.tone as JsonObject).synth = {
    type: "Tone.Synth",
    options: {
      oscillator: { type: "sine", $ref: "file:///etc/passwd" },
      envelope: {},
      volume: -10,
    },
  };
  (input.shader as JsonObject).fragment_shader =
    "// https://example.invalid/evil.glsl\nvoid main() {}";
  const originalFetch = globalThis.fetch;
  let fetched = 0;
  globalThis.fetch = () => {
    fetched++;
    return Promise.reject(new Error("no"));
  };
  try {
    const asset = normalizeAsset(input);
    const oscillator = (asset.tone.synth.options as JsonObject).oscillator as JsonObject;
    assert.equal(oscillator.$ref, "file:///etc/passwd");
    assert.match(asset.shader.fragment_shader, /example\.invalid/);
  } finally {
    globalThis.fetch = originalFetch;
  }
  assert.equal(fetched, 0);
  assert.deepEqual(issuesOf(() => normalizeAsset({ ...answer(), $ref: "http://x" })), [
    { path: "", msg: "unknown field '$ref'" },
  ]);
  const proto = JSON.parse('{"__proto__": {"polluted": true}}');
  const hostile = answer();
  (hostile.tone as JsonObject).synth = { type: "Tone.Synth", options: proto };
  const asset = normalizeAsset(hostile);
  assert.equal(({} as JsonObject).polluted, undefined);
  assert.ok(Object.hasOwn(asset.tone.synth.options as object, "__proto__"));
  let deep: unknown = 1;
  for (let index = 0; index < 200; index++) deep = { deep };
  const nested = answer();
  (nested.tone as JsonObject).synth = { type: "Tone.Synth", options: { deep } };
  assert.match(issuesOf(() => normalizeAsset(nested))[0].msg, /nested deeper than/);
});

Deno.test({
  name: "normalizeAsset() output of a minimal answer validates against the conformance set",
  ignore: sharedMissing(CONFORMANCE_SCHEMAS),
  fn: async () => {
    const store = await loadSchemaStore({ schemasDir: sharedPath(CONFORMANCE_SCHEMAS) });
    assert.deepEqual(store.validate(normalizeAsset(answer()), "synesthetic-asset"), {
      ok: true,
      errors: [],
    });
    assert.deepEqual(store.validate(normalizeAsset(canonicalBaseline()), "synesthetic-asset"), {
      ok: true,
      errors: [],
    });
  },
});

Deno.test({
  name:
    "normalizeAsset() and a mock external run touch no file and no network, whatever the answer says",
  permissions: "none",
  fn: async () => {
    const hostile = answer();
    hostile.name = "file:///etc/passwd";
    (hostile.shader as JsonObject).fragment_shader =
      '#include "/etc/passwd"\n// https://example.invalid/x.glsl\nvoid main() {}';
    (hostile.tone as JsonObject).synth = {
      type: "Tone.Synth",
      options: { oscillator: { $ref: "https://example.invalid/osc.json" }, url: "../../secret" },
    };
    (hostile.meta as JsonObject).description = "see /root/.ssh/id_rsa and http://127.0.0.1:1/";
    const asset = normalizeAsset(hostile);
    assert.equal(asset.name, "file:///etc/passwd");
    assert.deepEqual((asset.tone.synth.options as JsonObject).oscillator, {
      $ref: "https://example.invalid/osc.json",
    });
    const generator = await createExternalGenerator("gemini", {
      provider: "gemini",
      model: "m",
      endpoint: "https://gemini.invalid/v1",
      mode: "mock",
      apiVersion: "v1",
      timeouts: { connectMs: 100, readMs: 100, totalMs: 100 },
      maxRetries: 0,
      secrets: [],
    }, { mockAnswer: () => hostile, newTraceId: () => "t-1" });
    const generated = await generator.generate("a hostile answer");
    assert.equal(generated.asset.name, "file:///etc/passwd");
    assert.deepEqual(preflightAsset(generated.asset), []);
  },
});

Deno.test("normalizeAsset() fills missing sections from the baseline and names them", () => {
  const partial = answer();
  delete partial.haptic;
  delete partial.controls;
  delete partial.meta;
  const filled: string[] = [];
  const asset = normalizeAsset(partial, { prompt: "a red pulse", filled });
  assert.deepEqual(filled, ["haptic", "control", "meta_info"]);
  const baseline = canonicalBaseline();
  assert.deepEqual(asset.haptic, baseline.haptic);
  assert.equal(asset.meta_info.category, "multimodal");
  assert.ok(asset.control.control_parameters.length > 0);
  assert.equal(issuesOf(() => normalizeAsset({})).length, 1);
  assert.match(issuesOf(() => normalizeAsset({}))[0].msg, /no usable section/);
});
