import assert from "node:assert/strict";
import {
  controlDefaultsOutOfRange,
  hapticIntensityOutOfRange,
  inputDefaultsOutOfRange,
  missingSections,
  synthOptionTypeFindings,
} from "./asset_bounds.ts";
import { critiqueAsset } from "./critique_asset.ts";
import { generateDeterministic } from "./generate_deterministic.ts";
import { preflightAsset } from "./preflight_asset.ts";

const asset = {
  name: "x",
  shader: { input_parameters: [{ default: 5, min: 0, max: 1 }, { default: -Infinity }] },
  tone: { input_parameters: [{ default: -3, min: 0 }] },
  haptic: {
    input_parameters: [{ parameter: "haptic.intensity", default: 1.5, min: -0.1, max: 1 }],
    device: { options: { maxIntensity: { value: 2 } } },
  },
  control: { control_parameters: [{ parameter: "shader.u_x", default: 9, max: 2 }] },
};

Deno.test("bound findings: own min/max, non-finite numbers, the [0, 1] haptic rule, missing sections", () => {
  assert.deepEqual(inputDefaultsOutOfRange(asset).map((f) => [f.path, f.limit, f.bound]), [
    ["/shader/input_parameters/0/default", "max", 1],
    ["/shader/input_parameters/1/default", "finite", undefined],
    ["/tone/input_parameters/0/default", "min", 0],
    ["/haptic/input_parameters/0/default", "max", 1],
  ]);
  assert.deepEqual(controlDefaultsOutOfRange(asset).map((f) => [f.path, f.limit]), [
    ["/control/control_parameters/0/default", "max"],
  ]);
  assert.deepEqual(
    hapticIntensityOutOfRange(asset, ["default", "min"], { device: true }).map((f) => f.key),
    ["default", "min", "maxIntensity"],
  );
  assert.deepEqual(
    hapticIntensityOutOfRange(
      { haptic: { input_parameters: [{ parameter: "haptic.intensity" }] } },
      [
        "default",
      ],
      { requireDefault: true },
    ).map((f) => f.given),
    [undefined],
  );
  assert.deepEqual(missingSections({ shader: {}, tone: null }), [
    "tone",
    "haptic",
    "control",
    "meta_info",
  ]);
});

Deno.test("pre-flight and the critic report the same broken bounds, each in its own words", () => {
  const preflight = preflightAsset(asset).map((issue) => issue.path);
  const critic = critiqueAsset(asset).map((issue) => issue.path);
  for (
    const path of ["/control/control_parameters/0/default", "/haptic/input_parameters/0/default"]
  ) {
    assert.ok(preflight.includes(path), `pre-flight: ${path}`);
    assert.ok(critic.includes(path), `critic: ${path}`);
  }
});

Deno.test("synthOptionTypeFindings() reports synth options of a type Tone.js cannot take, from one table", () => {
  const asset = {
    tone: {
      synth: {
        type: "Tone.Banjo",
        options: {
          volume: "loud",
          detune: "up",
          portamento: 0.05,
          harmonicity: { value: "x", unit: "linear" },
          oscillator: { type: "wobble", frequency: "C4" },
          envelope: {
            attack: { value: 0.1, unit: "s" },
            decay: "8n",
            sustain: "half",
            release: [],
          },
        },
      },
    },
  };
  assert.deepEqual(synthOptionTypeFindings(asset).map((finding) => finding.path), [
    "/tone/synth/type",
    "/tone/synth/options/volume",
    "/tone/synth/options/detune",
    "/tone/synth/options/harmonicity",
    "/tone/synth/options/oscillator/type",
    "/tone/synth/options/envelope/sustain",
    "/tone/synth/options/envelope/release",
  ]);
  // A flat synth is checked beside its type; "-inf" is how an asset asks for silence.
  const flat = { tone: { synth: { type: "Tone.Synth", volume: "-inf", detune: true } } };
  assert.deepEqual(synthOptionTypeFindings(flat), [
    { path: "/tone/synth/detune", given: true, expected: "a number" },
  ]);
  // The critic reports each as an error: `syn critique` exits 1.
  const issues = critiqueAsset(asset).filter((issue) => issue.code === "tone_option_type");
  assert.equal(issues.length, 7);
  assert.ok(issues.every((issue) => issue.severity === "error"));
});

Deno.test("synthOptionTypeFindings() finds nothing in the generated and the reference synths", async () => {
  assert.deepEqual(
    synthOptionTypeFindings(generateDeterministic("a bright fm bell", { seed: 1 })),
    [],
  );
  const examples = new URL("../../schemas/examples/", import.meta.url);
  for await (const entry of Deno.readDir(examples)) {
    const asset = JSON.parse(await Deno.readTextFile(new URL(entry.name, examples)));
    assert.deepEqual(synthOptionTypeFindings(asset), [], entry.name);
  }
});
