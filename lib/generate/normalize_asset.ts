import { compareIssues, isRecord, SynError } from "../core/mod.ts";
import {
  conformJson,
  embeddedSchemaSet,
  numericString,
  type SchemaSet,
  type ValidationIssue,
} from "../schema/mod.ts";
import {
  ASSET_SCHEMA,
  type ControlBundle,
  type JsonObject,
  type Shader,
  type SynestheticAsset,
} from "./asset.ts";
import { canonicalBaseline } from "./canonical_baseline.ts";
import { extractFeatures, type PromptFeatures } from "./_prompt_features.ts";
import { type Answer, readAnswer } from "./_answer.ts";
import { byKey, eachRecord, fillExtras, fillNames, fillSections } from "./_fill_from_baseline.ts";
import {
  repairDeclaredDefaults,
  repairToneNumbers,
  repairUniformDefaults,
} from "./_repair_values.ts";

/** Options of {@linkcode normalizeAsset}. */
export interface NormalizeOptions {
  /** Source of defaults; the canonical baseline unless given. */
  baseline?: SynestheticAsset;
  /** The user's prompt: the title, description and tags fall back to it. */
  prompt?: string;
  /** The prompt already read (wins over `prompt`): the pipeline reads a prompt once. */
  features?: PromptFeatures;
  /** Receives the names of the sections the answer lacked and the baseline filled. */
  filled?: string[];
  /**
   * The schema set that says what the answer may hold (`synesthetic-asset` and what it
   * references); the embedded 0.7.3 set unless given.
   */
  schemas?: SchemaSet;
}

/**
 * Maps an engine's or provider's answer onto a schema-0.7.3 asset (Labs spec
 * "Normalization Contract"): `controls` → `control`, `meta` → `meta_info`; a missing
 * section is filled from the baseline (and named in `options.filled`), an answer with no
 * section at all refused. What the answer may hold is read from the schema set: unknown
 * keys where the schema closes an object, wrong types, values outside an enum and missing
 * required fields (after the fill) rejected; numeric strings coerced where the schema takes
 * a number and no string (and for the `default` of a control or parameter whose `type` is
 * numeric, a uniform's by its GLSL type, Tone.js options); missing optional fields filled
 * from the canonical baseline; `mouse.x → shader.u_px` and inverted `mouse.y → shader.u_py`
 * guaranteed; `meta_info.category` is `"multimodal"`. Pure: nothing in the answer is
 * ever fetched or opened. Throws `SynError` code `bad_response` with `data.issues`.
 */
export function normalizeAsset(raw: unknown, options: NormalizeOptions = {}): SynestheticAsset {
  if (!isRecord(raw)) {
    fail([{
      path: "",
      msg: `expected an object, got ${Array.isArray(raw) ? "array" : typeof raw}`,
    }]);
  }
  const baseline = options.baseline ?? canonicalBaseline();
  const schemas = options.schemas ?? embeddedSchemaSet();
  const answer = readAnswer(raw);
  const filled = fillAnswer(answer, baseline, schemas, options);
  const checked = checkAsset(filled, answer, schemas);
  const issues = [...answer.issues, ...checked.issues];
  repairValues(checked.asset, answer.intensity, issues);
  if (issues.length) fail(issues);
  return guaranteeMinimum(checked.asset, baseline);
}

function assetSchemaId(schemas: SchemaSet): string {
  const id = schemas.idOf(ASSET_SCHEMA);
  if (id === undefined) {
    throw new SynError("schema_invalid", `Schema set has no ${ASSET_SCHEMA} schema`);
  }
  return id;
}

/**
 * The answer filled from the baseline. A first pass over the schema turns numeric strings
 * into numbers where the schema wants one, so the fill reads numbers (a control's `min`
 * becomes its default); its issues are left to the check that follows the fill.
 */
function fillAnswer(
  answer: Answer,
  baseline: SynestheticAsset,
  schemas: SchemaSet,
  options: NormalizeOptions,
): JsonObject {
  const asset = conformJson(answer.asset, { reference: assetSchemaId(schemas), set: schemas })
    .value as JsonObject;
  fillSections(asset, baseline, options.filled);
  fillNames(asset, baseline, options.features ?? extractFeatures(options.prompt ?? ""));
  fillExtras(asset, baseline);
  return asset;
}

/** The filled asset against the schema, required fields included; issues at the answer's pointers. */
function checkAsset(
  asset: JsonObject,
  answer: Answer,
  schemas: SchemaSet,
): { asset: JsonObject; issues: ValidationIssue[] } {
  const { value, issues } = conformJson(
    asset,
    { reference: assetSchemaId(schemas), set: schemas },
    { required: true },
  );
  return {
    asset: value as JsonObject,
    issues: issues.map((issue) => ({ ...issue, path: answer.answerPointer(issue.path) })),
  };
}

function repairValues(asset: JsonObject, intensity: unknown, issues: ValidationIssue[]): void {
  const section = (name: string) => isRecord(asset[name]) ? asset[name] as JsonObject : {};
  repairUniformDefaults(asset.shader, issues);
  repairDeclaredDefaults(section("tone").input_parameters);
  repairDeclaredDefaults(section("haptic").input_parameters);
  repairDeclaredDefaults(section("control").control_parameters);
  repairToneNumbers(asset.tone);
  applyIntensity(section("haptic"), intensity, issues);
}

/** The Labs answer's `haptic.intensity` becomes the default of the `haptic.intensity` parameter. */
function applyIntensity(haptic: JsonObject, intensity: unknown, issues: ValidationIssue[]): void {
  if (intensity === undefined) return;
  const number = typeof intensity === "number" ? intensity : numericString(intensity);
  if (number === undefined || !Number.isFinite(number)) {
    const got = intensity === null ? "null" : typeof intensity;
    issues.push({ path: "/haptic/intensity", msg: `expected a number, got ${got}` });
    return;
  }
  eachRecord(haptic.input_parameters, (parameter) => {
    if (parameter.parameter === "haptic.intensity") parameter.default = number;
  });
}

function fail(issues: ValidationIssue[]): never {
  const sorted = [...issues].sort(compareIssues((issue) => issue.msg));
  const first = sorted[0];
  throw new SynError(
    "bad_response",
    `Answer does not fit the asset contract: ${first.path || "/"} ${first.msg}${
      sorted.length > 1 ? ` (and ${sorted.length - 1} more)` : ""
    }`,
    { reason: "bad_response", issues: sorted },
  );
}

/** The asset's keys in the order `generate` writes them; others (the schema allows) after. */
const ASSET_ORDER = [
  "name",
  "description",
  "shader",
  "tone",
  "haptic",
  "control",
  "modulations",
  "rule_bundle",
  "meta_info",
];

/**
 * The Labs spec's minimum, from the baseline where the answer lacks it: `u_px`/`u_py` as
 * uniforms and input parameters, controls `mouse.x → shader.u_px` and inverted
 * `mouse.y → shader.u_py`.
 */
function guaranteeMinimum(asset: JsonObject, baseline: SynestheticAsset): SynestheticAsset {
  guaranteeShaderInputs(asset.shader as Shader, baseline.shader);
  guaranteeMouseControls(asset.control as ControlBundle, baseline.control);
  const ordered: JsonObject = {};
  for (const key of ASSET_ORDER) if (asset[key] !== undefined) ordered[key] = asset[key];
  for (const [key, value] of Object.entries(asset)) ordered[key] ??= value;
  return ordered as SynestheticAsset;
}

function guaranteeShaderInputs(shader: Shader, base: Shader): void {
  const uniforms = byKey(base.uniforms, "name");
  const parameters = byKey(base.input_parameters, "parameter");
  for (const name of ["u_px", "u_py"]) {
    const uniform = uniforms.get(name);
    if (uniform && !shader.uniforms.some((item) => item.name === name)) {
      shader.uniforms.push(structuredClone(uniform) as unknown as Shader["uniforms"][number]);
    }
    const parameter = parameters.get(name);
    if (parameter && !shader.input_parameters.some((item) => item.parameter === name)) {
      shader.input_parameters.push(
        structuredClone(parameter) as unknown as Shader["input_parameters"][number],
      );
    }
  }
}

function guaranteeMouseControls(bundle: ControlBundle, base: ControlBundle): void {
  const controls = bundle.control_parameters;
  const has = (parameter: string, axis: string, inverted: boolean) =>
    controls.some((control) =>
      control.parameter === parameter &&
      control.mappings.some((mapping) =>
        mapping.action.axis === axis && (inverted ? mapping.action.sensitivity < 0 : true)
      )
    );
  const fallback = (parameter: string) =>
    base.control_parameters.find((control) => control.parameter === parameter);
  const pointerX = fallback("shader.u_px");
  if (pointerX && !has("shader.u_px", "mouse.x", false)) {
    controls.unshift(structuredClone(pointerX));
  }
  const pointerY = fallback("shader.u_py");
  if (pointerY && !has("shader.u_py", "mouse.y", true)) {
    controls.splice(1, 0, structuredClone(pointerY));
  }
}
