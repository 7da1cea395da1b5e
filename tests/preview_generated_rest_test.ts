/**
 * A generated asset, drawn by the preview page, rests at the values it declares: an additive
 * modulation's `offset` is added to its target's own value (the canonical baseline's
 * `offset: 0`), and the deterministic engine, the critic and the page read it the same way.
 */
import assert from "node:assert/strict";
import { critiqueAsset, generateDeterministic } from "../lib/generate/mod.ts";
import { collectParameters, ParameterState } from "../lib/preview/page/parameters.js";

const PROMPTS = ["a pulsing blue circle", "angry red fire", "a calm blue ocean at dusk"];

/** The page's value of `key` averaged over `period` seconds (the waves average to zero). */
function meanValue(state: ParameterState, key: string, period: number): number {
  const samples = 2000;
  let sum = 0;
  for (let index = 0; index < samples; index++) {
    sum += state.value(key, (index / samples) * period) as number;
  }
  return sum / samples;
}

Deno.test("the page draws a generated asset's modulated values around the values it declares", () => {
  for (const prompt of PROMPTS) {
    const asset = generateDeterministic(prompt, { seed: 3 });
    const table = collectParameters(asset);
    const state = new ParameterState(table);
    for (const modulation of asset.modulations as Record<string, number | string>[]) {
      const key = String(modulation.target);
      const declared = table.get(key)?.initial;
      assert.equal(typeof declared, "number", `${prompt}: ${key} is declared`);
      const mean = meanValue(state, key, 1 / Number(modulation.frequency));
      const tolerance = Math.abs(Number(modulation.amplitude)) * 0.01 + 1e-9;
      assert.ok(
        Math.abs(mean - (declared as number)) <= tolerance,
        `${prompt}: ${key} moves around ${mean}, the asset declares ${declared}`,
      );
      if (modulation.waveform === "sine" && modulation.phase === 0) {
        assert.equal(state.value(key, 0), declared, `${prompt}: ${key} at rest`);
      }
    }
  }
});

Deno.test("the critic flags an additive offset that doubles its target's value at rest", () => {
  const asset = generateDeterministic("a pulsing blue circle", { seed: 0 });
  const codes = (issues: { code: string }[]) => issues.map((issue) => issue.code);
  assert.ok(!codes(critiqueAsset(asset)).some((code) => code.startsWith("modulation_")));
  const radius = (asset.modulations as Record<string, unknown>[]).findIndex((m) =>
    m.target === "shader.u_r"
  );
  const uniform = (asset.shader.uniforms as { name: string; default: number }[])
    .find((u) => u.name === "u_r")!;
  const doubled = structuredClone(asset);
  (doubled.modulations as Record<string, unknown>[])[radius].offset = uniform.default;
  const issue = critiqueAsset(doubled).find((i) => i.code === "modulation_offset_doubles_value");
  assert.ok(issue, "flagged");
  assert.equal(issue.path, `/modulations/${radius}/offset`);
  const haptic = structuredClone(asset);
  const pulse = (haptic.modulations as Record<string, unknown>[]).find((m) =>
    m.target === "haptic.intensity"
  )!;
  pulse.offset = 0.9;
  assert.ok(codes(critiqueAsset(haptic)).includes("modulation_rest_out_of_range"));
});
