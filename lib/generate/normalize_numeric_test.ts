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
