/**
 * `deno bench -A lib/patch/diff_bench.ts` — diff of two ~5 KB assets with ~10% of their
 * values changed (goal: ≥ 20,000 diffs/s). The pair is conformance
 * `SynestheticAsset_Example4` without its `$schema` marker and `control` section (5.4 KB
 * as compact JSON), and a copy with every tenth scalar changed, one member removed and
 * one added. Without `../shared`, a generated asset of the same shape and size is used.
 */
import { CONFORMANCE_EXAMPLES, sharedMissing, sharedPath } from "../../tests/fakes/shared.ts";
import { apply, diff } from "./mod.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function loadBase(): { base: Json; source: string } {
  if (!sharedMissing(CONFORMANCE_EXAMPLES)) {
    const path = `${sharedPath(CONFORMANCE_EXAMPLES)}/SynestheticAsset_Example4.json`;
    const asset = JSON.parse(Deno.readTextFileSync(path));
    delete asset.$schema;
    delete asset.control;
    return { base: asset, source: "SynestheticAsset_Example4 without $schema and control" };
  }
  const uniforms = Array.from({ length: 24 }, (_, index) => ({
    name: `u_param${index}`,
    type: "float",
    stage: "fragment",
    default: index / 10,
  }));
  const parameters = Array.from({ length: 24 }, (_, index) => ({
    name: `param${index}`,
    parameter: `shader.u_param${index}`,
    path: `u_param${index}`,
    type: "float",
    default: index / 10,
    min: 0,
    max: 1,
    step: 0.01,
  }));
  return {
    base: {
      name: "generated_asset",
      description: "A generated asset of the conformance examples' shape",
      meta_info: { title: "Generated", category: "bench", complexity: "medium", tags: ["a", "b"] },
      shader: {
        name: "circle_sdf",
        vertex_shader: "void main() { gl_Position = vec4(position, 1.0); }",
        fragment_shader: "uniform float u_time; void main() { gl_FragColor = vec4(1.0); }",
        uniforms,
        input_parameters: parameters,
      },
      tone: { name: "synth", synth: { type: "Tone.Synth", options: { volume: -8, detune: 0 } } },
      haptic: { device: { type: "generic", options: { maxIntensity: 1 } }, input_parameters: [] },
      modulations: [{ id: "pulse", target: "shader.u_param1", type: "additive", scale: 0.5 }],
    },
    source: "generated asset (../shared not present)",
  };
}

/** A copy with every tenth scalar changed (in key order), one member removed, one added. */
function changed(base: Json): Json {
  let counter = 0;
  const visit = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === "object") {
      const result: { [key: string]: Json } = {};
      for (const key of Object.keys(value).sort()) result[key] = visit(value[key]);
      return result;
    }
    if (counter++ % 10 !== 0) return value;
    if (typeof value === "number") return value + 1;
    if (typeof value === "string") return value + " (edited)";
    if (typeof value === "boolean") return !value;
    return 0;
  };
  const next = visit(base) as { [key: string]: Json };
  delete next.description;
  next.meta_info = { ...(next.meta_info as object), provenance: { engine: "bench" } };
  return next;
}

const { base, source } = loadBase();
const next = changed(base);
const patch = diff(base, next);
const copy = structuredClone(base);
console.log(
  `diff bench: ${source}; base ${JSON.stringify(base).length} B, next ${
    JSON.stringify(next).length
  } B, ${patch.length} operations`,
);

Deno.bench("diff() of two ~5 KB assets, ~10% changed", { group: "diff", baseline: true }, () => {
  diff(base, next);
});

Deno.bench("diff() of two equal ~5 KB assets (separate copies)", { group: "diff" }, () => {
  diff(base, copy);
});

Deno.bench("apply() of that patch", { group: "apply" }, () => {
  apply(base, patch);
});
