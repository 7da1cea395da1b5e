import assert from "node:assert/strict";
import { canonicalBaseline } from "./canonical_baseline.ts";
import { normalizeAsset } from "./normalize_asset.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function answer(change: (asset: Json) => void): Json {
  const asset = structuredClone(canonicalBaseline()) as unknown as Json;
  change(asset);
  return asset;
}

Deno.test("normalizeAsset() converts numeric strings in float and vec uniforms", () => {
  const raw = answer((asset) => {
    asset.shader.uniforms[0].type = "float";
    asset.shader.uniforms[0].default = "0.5";
    asset.shader.uniforms.push({
      name: "u_offset",
      type: "vec2",
      stage: "fragment",
      default: ["0.25", "-1e-1"],
    });
  });
  const shader = normalizeAsset(raw).shader as unknown as Json;
  assert.equal(shader.uniforms[0].default, 0.5);
  assert.deepEqual(shader.uniforms.find((uniform: Json) => uniform.name === "u_offset").default, [
    0.25,
    -0.1,
  ]);
});

Deno.test("normalizeAsset() rejects a uniform default that is not a number of its type", () => {
  for (
    const [type, value] of [["float", "loud"], ["vec2", ["1", "x"]], ["vec3", [1, 2]]] as const
  ) {
    const raw = answer((asset) => {
      asset.shader.uniforms[0].type = type;
      asset.shader.uniforms[0].default = value;
    });
    assert.throws(
      () => normalizeAsset(raw),
      /\/shader\/uniforms\/0\/default/,
      `${type} ${JSON.stringify(value)}`,
    );
  }
});

Deno.test("normalizeAsset() converts numeric strings in Tone options and effects, and keeps words", () => {
  const raw = answer((asset) => {
    asset.tone.synth = {
      type: "Tone.Synth",
      options: {
        volume: "-6",
        detune: "12",
        oscillator: { type: "sine" },
        envelope: { attack: "0.01", release: "1.5" },
      },
    };
    asset.tone.effects = [{ type: "Tone.Reverb", order: 0, options: { decay: "2.5", wet: "0.3" } }];
  });
  const tone = normalizeAsset(raw).tone as unknown as Json;
  assert.deepEqual(tone.synth.options, {
    volume: -6,
    detune: 12,
    oscillator: { type: "sine" },
    envelope: { attack: 0.01, release: 1.5 },
  });
  assert.deepEqual(tone.effects[0].options, { decay: 2.5, wet: 0.3 });
});

Deno.test("normalizeAsset() turns a hex colour default of a vec3/vec4 uniform into channels in [0, 1]", () => {
  const cases: [string, string, number[]][] = [
    ["vec3", "#1a1a1a", [26 / 255, 26 / 255, 26 / 255]],
    ["vec3", "#F00", [1, 0, 0]],
    ["vec4", "#ff000080", [1, 0, 0, 128 / 255]],
    ["vec4", "#0f08", [0, 1, 0, 136 / 255]],
    ["vec4", "#336699", [0x33 / 255, 0x66 / 255, 0x99 / 255, 1]],
  ];
  for (const [type, value, expected] of cases) {
    const raw = answer((asset) => {
      asset.shader.uniforms.push({ name: "u_color", type, stage: "fragment", default: value });
    });
    const shader = normalizeAsset(raw).shader as unknown as Json;
    const uniform = shader.uniforms.find((item: Json) => item.name === "u_color");
    assert.deepEqual(uniform.default, expected, `${type} ${value}`);
  }
  // Anything else of the wrong kind stays an issue: no alpha in a vec3, no colour in a vec2.
  for (const [type, value] of [["vec3", "#ff000080"], ["vec2", "#fff"], ["vec3", "#ggg"]]) {
    const raw = answer((asset) => {
      asset.shader.uniforms.push({ name: "u_color", type, stage: "fragment", default: value });
    });
    assert.throws(() => normalizeAsset(raw), /must be \d numbers/, `${type} ${value}`);
  }
});

Deno.test("normalizeAsset() accepts what the schema leaves open: uniform descriptions, envelope objects, any haptic default", () => {
  const raw = answer((asset) => {
    asset.shader.uniforms[0].description = "time in seconds";
    asset.tone.synth = {
      type: "Tone.Synth",
      options: {
        volume: -6,
        oscillator: { type: "sine" },
        envelope: { attack: { value: 0.1, unit: "s" } },
      },
    };
    asset.haptic.input_parameters[0].default = { level: "soft" };
  });
  const asset = normalizeAsset(raw) as unknown as Json;
  assert.equal(asset.shader.uniforms[0].description, "time in seconds");
  assert.deepEqual(asset.tone.synth.options.envelope.attack, { value: 0.1, unit: "s" });
  assert.deepEqual(asset.haptic.input_parameters[0].default, { level: "soft" });
});
