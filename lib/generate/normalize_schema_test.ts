import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { embeddedSchemaFiles, type SchemaSet, schemaSetOf } from "../schema/mod.ts";
import type { JsonObject } from "./asset.ts";
import { canonicalBaseline } from "./canonical_baseline.ts";
import { normalizeAsset } from "./normalize_asset.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** The embedded schema set with one change made to a copy of it. */
function changedSet(change: (files: Record<string, Json>) => void): SchemaSet {
  const files = structuredClone(embeddedSchemaFiles()) as Record<string, Json>;
  change(files);
  return schemaSetOf(files);
}

function answer(change: (asset: Json) => void): Json {
  const asset = canonicalBaseline() as unknown as Json;
  change(asset);
  return asset;
}

function issuesOf(fn: () => unknown): { path: string; msg: string }[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof SynError && error.code === "bad_response", String(error));
    return error.data.issues as { path: string; msg: string }[];
  }
  assert.fail("expected a bad_response");
}

Deno.test("normalizeAsset() closes an object when the schema closes it, with no code change", () => {
  const raw = answer((asset) => asset.shader.uniforms[0].description = "time in seconds");
  assert.equal((normalizeAsset(raw).shader.uniforms[0] as Json).description, "time in seconds");
  const closed = changedSet((files) => {
    files["shader.schema.json"].$defs.uniform.additionalProperties = false;
  });
  assert.deepEqual(issuesOf(() => normalizeAsset(raw, { schemas: closed })), [
    { path: "/shader/uniforms/0", msg: "unknown field 'description'" },
  ]);
});

Deno.test("normalizeAsset() opens an object when the schema opens it", () => {
  const raw = answer((asset) => asset.studio = "north");
  assert.deepEqual(issuesOf(() => normalizeAsset(raw)), [
    { path: "", msg: "unknown field 'studio'" },
  ]);
  const open = changedSet((files) => {
    delete files["synesthetic-asset.schema.json"].additionalProperties;
  });
  assert.equal((normalizeAsset(raw, { schemas: open }) as JsonObject).studio, "north");
});

Deno.test("normalizeAsset() types and coerces a field where the schema types it as a number", () => {
  const raw = answer((asset) => {
    asset.tone.synth = { type: "Tone.Synth", options: { portamento: "slow" } };
    asset.haptic.input_parameters[0].type = "string";
    asset.haptic.input_parameters[0].default = "0.25";
  });
  const kept = normalizeAsset(raw);
  assert.equal((kept.tone.synth.options as JsonObject).portamento, "slow");
  assert.equal(kept.haptic.input_parameters[0].default, "0.25");
  const typed = changedSet((files) => {
    files["tone.schema.json"].properties.synth = { $ref: "#/$defs/synth" };
    files["tone.schema.json"].$defs.synth.required = ["type"];
    files["haptic.schema.json"].$defs.parameter.properties.default = { type: "number" };
  });
  assert.deepEqual(issuesOf(() => normalizeAsset(raw, { schemas: typed })), [
    {
      path: "/tone/synth/options/portamento",
      msg: "expected a number or an object, got string",
    },
  ]);
  const numeric = structuredClone(raw);
  delete numeric.tone.synth.options.portamento;
  const coerced = normalizeAsset(numeric, { schemas: typed });
  assert.equal(coerced.haptic.input_parameters[0].default, 0.25);
});

Deno.test("normalizeAsset() requires what the schema requires once the baseline has filled in", () => {
  const known = answer((asset) => delete asset.shader.input_parameters[0].min);
  // The baseline fills the min of an input parameter it knows by its name.
  assert.equal(typeof normalizeAsset(known).shader.input_parameters[0].min, "number");
  const raw = answer((asset) => asset.shader.input_parameters.push({ parameter: "u_new" }));
  const path = `/shader/input_parameters/${raw.shader.input_parameters.length - 1}`;
  assert.deepEqual(issuesOf(() => normalizeAsset(raw)), [
    { path, msg: "missing required field 'default'" },
    { path, msg: "missing required field 'max'" },
    { path, msg: "missing required field 'min'" },
  ]);
  const relaxed = changedSet((files) => {
    files["shader.schema.json"].$defs.inputParameter.required = ["parameter"];
  });
  const asset = normalizeAsset(raw, { schemas: relaxed });
  assert.ok(asset.shader.input_parameters.some((parameter) => parameter.parameter === "u_new"));
});
