import { compareIssues, isRecord, setOwn, SynError } from "../core/mod.ts";
import {
  type ControlParameter,
  type InputParameter,
  type JsonObject,
  REQUIRED_SECTIONS,
  type SynestheticAsset,
  type UniformDef,
} from "./asset.ts";
import { canonicalBaseline } from "./canonical_baseline.ts";
import { extractFeatures, type PromptFeatures } from "./_prompt_features.ts";
import { conform, numericString, s, type Shape, type ShapeIssue } from "./_shape.ts";

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
}

// Every shape below is at most as strict as the 0.7.3 schema in `schemas/`: a value the
// schema accepts is never an issue here (objects the schema leaves open stay open,
// fields it leaves untyped are plain JSON). The critic, not normalization, judges taste.
const num = s.number();
const optNum = s.nullable(s.number());
const str = s.string();
const strList = s.nullable(s.array(s.string()));
const anyJson = s.json();
const openObject = s.object({}, { open: true });

const uniformShape = s.object(
  { name: s.string(true), type: str, stage: str, default: anyJson },
  { open: true },
);
const shaderParameterShape = s.object({
  name: str,
  parameter: s.string(true),
  path: str,
  type: str,
  default: num,
  min: num,
  max: num,
  step: optNum,
  smoothingTime: optNum,
}, { required: ["parameter"], open: true });
/** A haptic parameter: `default` of any JSON type (schema `haptic.schema.json`). */
const hapticParameterShape = s.object({
  name: str,
  parameter: s.string(true),
  path: str,
  type: str,
  unit: str,
  default: anyJson,
  min: optNum,
  max: optNum,
  step: optNum,
  smoothingTime: optNum,
  options: strList,
}, { required: ["parameter"], open: true });
/** A tone parameter: `tone.schema.json` asks only for an object. */
const toneParameterShape = s.object({ parameter: s.nullable(s.string(true)) }, { open: true });

// `tone.schema.json` types the synth as an object and, inside `options`, only these; the
// rest (detune, envelope times, an unknown synth type…) is the critic's to judge.
const synthShape = s.object({
  type: s.string(true),
  options: s.object({
    volume: s.union(s.number(), openObject),
    portamento: s.nullable(s.union(s.number(), openObject)),
    oscillator: openObject,
    envelope: openObject,
    filter: s.nullable(openObject),
    filterEnvelope: s.nullable(openObject),
  }, { open: true }),
}, { required: ["type"], open: true });

const mappingShape = s.object({
  combo: s.object({
    keys: strList,
    mouseButtons: strList,
    strict: s.boolean(),
    wheel: s.nullable(s.boolean()),
  }, { open: true }),
  action: s.object({
    axis: s.enum(["mouse.x", "mouse.y", "mouse.wheel"]),
    sensitivity: num,
    curve: s.enum(["linear", "exponential", "sine", "discrete"]),
    scale: num,
  }, { required: ["axis", "sensitivity"], open: true }),
}, { required: ["action"], open: true });

const controlShape = s.object({
  parameter: s.string(true),
  label: s.string(true),
  type: s.enum(["float", "int", "bool", "string"]),
  unit: s.string(true),
  default: s.union(s.string(), s.number(), s.boolean()),
  mappings: s.array(mappingShape),
  min: optNum,
  max: optNum,
  step: optNum,
  smoothingTime: num,
  options: strList,
}, { required: ["parameter", "mappings"] });

const controlBundleShape = s.object({
  name: str,
  description: s.nullable(str),
  control_parameters: s.array(controlShape),
  meta_info: s.nullable(s.object({}, { open: true })),
}, { required: ["control_parameters"] });

const modulationShape = s.object({
  id: s.string(true),
  target: s.string(true),
  type: s.enum(["additive", "multiplicative"]),
  waveform: s.enum(["sine", "triangle", "square", "sawtooth"]),
  frequency: num,
  amplitude: num,
  offset: num,
  phase: num,
  scale: num,
  scaleProfile: s.enum(["linear", "exponential", "logarithmic", "sine", "cosine"]),
  min: optNum,
  max: optNum,
}, { required: ["id", "target", "type", "waveform", "frequency", "amplitude"], open: true });

/** `meta_info` is any object in the schema; title and description name the asset. */
const metaShape = s.object({
  title: str,
  description: str,
  category: str,
  complexity: str,
  tags: s.array(s.string()),
  prompt: str,
}, { open: true });

/** What a provider may send, in the Labs spec's section names or schema 0.7.3's. */
const ANSWER_SHAPE: Shape = s.object({
  name: str,
  description: s.nullable(str),
  shader: s.object({
    name: str,
    description: s.nullable(str),
    vertex_shader: str,
    fragment_shader: s.string(true),
    uniforms: s.array(uniformShape),
    input_parameters: s.array(shaderParameterShape),
    meta_info: s.nullable(s.object({}, { open: true })),
  }, { required: ["fragment_shader"] }),
  tone: s.object({
    name: str,
    description: s.nullable(str),
    synth: synthShape,
    input_parameters: s.array(toneParameterShape),
    effects: s.nullable(s.array(openObject)),
    patterns: s.nullable(s.array(openObject)),
    parts: s.nullable(s.array(openObject)),
    meta_info: s.nullable(openObject),
  }, { required: ["synth"], open: true }),
  haptic: s.object({
    name: str,
    description: s.nullable(str),
    intensity: num,
    device: s.object({
      type: str,
      options: s.object({}, {
        values: s.object({ value: num, unit: str }, { required: ["value", "unit"], open: true }),
      }),
    }, { required: ["type"], open: true }),
    input_parameters: s.array(hapticParameterShape),
    meta_info: s.nullable(openObject),
  }, { open: true }),
  controls: s.union(s.array(controlShape), controlBundleShape),
  control: controlBundleShape,
  meta: metaShape,
  meta_info: metaShape,
  modulations: s.nullable(s.array(modulationShape)),
  rule_bundle: s.object({ name: s.string(true), rules: s.array(s.object({}, { open: true })) }, {
    required: ["rules"],
    open: true,
  }),
});

function fail(issues: ShapeIssue[]): never {
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

/** Fills the keys `target` lacks (or has as undefined) from `defaults`, deep-copied. */
function fillMissing<T extends JsonObject>(target: T, defaults: JsonObject | undefined): T {
  if (!defaults) return target;
  for (const [key, value] of Object.entries(defaults)) {
    if (target[key] === undefined && value !== undefined) {
      (target as JsonObject)[key] = structuredClone(value);
    }
  }
  return target;
}

/**
 * A control's or parameter's `default` may be a string (for `type: "string"`), so a
 * numeric string there is coerced only once the item declares itself numeric: `float`,
 * or `int` with an integral value.
 */
function coerceDefault(item: JsonObject): void {
  const number = numericString(item.default);
  if (number === undefined) return;
  if (item.type === "float" || (item.type === "int" && Number.isInteger(number))) {
    item.default = number;
  }
}

/** Vector uniform types and their lengths (GLSL). */
const VECTOR_LENGTHS: Readonly<Record<string, number>> = { vec2: 2, vec3: 3, vec4: 4 };

const HEX_COLOR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/**
 * A CSS hex colour (`#rgb`, `#rrggbb`; `#rgba`, `#rrggbbaa` for a `vec4`) as `length`
 * channels in [0, 1]; a `vec4` without alpha is opaque. `undefined` for anything else.
 * The reference assets of schema 0.7.3 give colour uniforms this way.
 */
export function hexColorChannels(value: unknown, length: number): number[] | undefined {
  if (typeof value !== "string" || !HEX_COLOR.test(value) || length < 3) return undefined;
  const digits = value.slice(1);
  const short = digits.length <= 4;
  const pairs = short ? [...digits].map((digit) => digit + digit) : digits.match(/../g) as string[];
  if (pairs.length > length) return undefined;
  const channels = pairs.map((pair) => parseInt(pair, 16) / 255);
  if (channels.length < length) channels.push(1);
  return channels.length === length ? channels : undefined;
}

/**
 * A uniform's default as its GLSL type needs it: `float`/`int` a number, `vecN` N
 * numbers. Numeric strings and, for `vec3`/`vec4`, hex colours are converted; anything
 * else of the wrong kind is an issue, never passed through to the shader.
 */
function coerceUniformDefault(uniform: JsonObject, path: string, issues: ShapeIssue[]): void {
  const type = String(uniform.type);
  const value = uniform.default;
  if (value === undefined || value === null) return;
  const toNumber = (item: unknown): number | undefined =>
    typeof item === "number" ? item : numericString(item);
  if (type === "float" || type === "int") {
    const number = toNumber(value);
    if (number === undefined) issues.push({ path, msg: `must be a number for a ${type} uniform` });
    else uniform.default = number;
    return;
  }
  const length = VECTOR_LENGTHS[type];
  if (length === undefined) return;
  const numbers = Array.isArray(value)
    ? value.map(toNumber)
    : hexColorChannels(value, length) ?? [];
  if (numbers.length !== length || numbers.some((number) => number === undefined)) {
    issues.push({ path, msg: `must be ${length} numbers for a ${type} uniform` });
    return;
  }
  uniform.default = numbers as number[];
}

/** A copy with every numeric string (at any depth) converted to its number. */
function coerceNumericStrings(value: unknown): unknown {
  const number = numericString(value);
  if (number !== undefined) return number;
  if (Array.isArray(value)) return value.map(coerceNumericStrings);
  if (value === null || typeof value !== "object") return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(copy, key, key === "type" ? item : coerceNumericStrings(item));
  }
  return copy;
}

function byKey<T extends JsonObject>(items: readonly T[] | undefined, key: string) {
  const map = new Map<string, T>();
  for (const item of items ?? []) {
    if (typeof item[key] === "string") map.set(item[key] as string, item);
  }
  return map;
}

function requireFields(
  item: JsonObject,
  fields: readonly string[],
  path: string,
  issues: ShapeIssue[],
): void {
  for (const field of fields) {
    if (item[field] === undefined || item[field] === null) {
      issues.push({ path, msg: `missing required field '${field}'` });
    }
  }
}

/**
 * Maps an engine's or provider's answer onto a schema-0.7.3 asset (Labs spec
 * "Normalization Contract"): `controls` → `control`, `meta` → `meta_info`; a missing
 * section is filled from the baseline (and named in `options.filled`), an answer with no
 * section at all refused; unknown keys, wrong types and missing required fields rejected; numeric
 * strings coerced where only a number fits (and for the `default` of a control or
 * parameter whose `type` is numeric); missing optional fields filled from the
 * canonical baseline; `mouse.x → shader.u_px` and inverted `mouse.y → shader.u_py`
 * guaranteed; `meta_info.category` is `"multimodal"`. Pure: nothing in the answer is
 * ever fetched or opened. Throws `SynError` code `bad_response` with `data.issues`.
 */
export function normalizeAsset(raw: unknown, options: NormalizeOptions = {}): SynestheticAsset {
  const baseline = options.baseline ?? canonicalBaseline();
  if (!isRecord(raw)) {
    fail([{
      path: "",
      msg: `expected an object, got ${Array.isArray(raw) ? "array" : typeof raw}`,
    }]);
  }
  const input: JsonObject = { ...raw };
  delete input.$schema;
  delete input.$schemaRef;
  const issues: ShapeIssue[] = [];
  const answer = conform(input, ANSWER_SHAPE, issues) as JsonObject;
  if (answer.controls !== undefined && answer.control !== undefined) {
    issues.push({ path: "", msg: "both 'controls' and 'control' given" });
  }
  if (answer.meta !== undefined && answer.meta_info !== undefined) {
    issues.push({ path: "", msg: "both 'meta' and 'meta_info' given" });
  }
  // The schema leaves meta_info open, but provenance is syn's record of the run: an
  // answer never writes it.
  for (const key of ["meta", "meta_info"]) {
    if (isRecord(answer[key]) && Object.hasOwn(answer[key], "provenance")) {
      issues.push({ path: `/${key}`, msg: "field 'provenance' is written by syn, not the answer" });
    }
  }

  const asset: JsonObject = {};
  const controls = answer.control ?? answer.controls;
  const sections: JsonObject = {
    shader: answer.shader,
    tone: answer.tone,
    haptic: answer.haptic,
    control: Array.isArray(controls) ? { control_parameters: controls } : controls,
    meta_info: answer.meta_info ?? answer.meta,
  };
  // Labs normalization contract: sections come from the baseline "unless provider
  // supplies" them. Only an answer with none at all has nothing usable.
  const missing = REQUIRED_SECTIONS.filter((section) => sections[section] === undefined);
  if (missing.length === REQUIRED_SECTIONS.length) {
    issues.push({ path: "", msg: "no usable section (shader, tone, haptic, controls, meta)" });
  }
  if (issues.length) fail(issues);
  for (const section of missing) {
    sections[section] = section === "meta_info"
      ? {}
      : structuredClone(baseline[section]) as unknown as JsonObject;
    options.filled?.push(section);
  }

  const shader = normalizeShader(sections.shader as JsonObject, baseline, issues);
  const tone = normalizeTone(sections.tone as JsonObject, baseline, issues);
  const haptic = normalizeHaptic(sections.haptic as JsonObject, baseline, issues);
  const control = normalizeControls(sections.control as JsonObject, baseline, issues);
  const meta = sections.meta_info as JsonObject;
  const features = options.features ?? extractFeatures(options.prompt ?? "");
  const title = (meta.title as string | undefined) ?? (answer.name as string | undefined) ??
    features.title ?? baseline.name;
  const description = (meta.description as string | undefined) ??
    (answer.description as string | undefined) ??
    (features.excerpt || baseline.meta_info.description);
  const promptTags = features.tagWords.slice(0, 8);
  const metaInfo = {
    ...meta,
    title,
    description,
    category: "multimodal",
    complexity: meta.complexity ?? baseline.meta_info.complexity ?? "medium",
    tags: meta.tags ?? (promptTags.length ? promptTags : [...baseline.meta_info.tags]),
  };
  if (issues.length) fail(issues);

  asset.name = typeof answer.name === "string" && answer.name.trim() ? answer.name : title;
  asset.description = answer.description ?? description;
  asset.shader = shader;
  asset.tone = tone;
  asset.haptic = haptic;
  asset.control = control;
  const uniformNames = new Set(shader.uniforms.map((uniform) => uniform.name));
  asset.modulations = answer.modulations !== undefined
    ? answer.modulations
    : structuredClone(baseline.modulations ?? []).filter((modulation) => {
      const target = String(modulation.target);
      return !target.startsWith("shader.") || uniformNames.has(target.slice(7));
    });
  if (answer.rule_bundle !== undefined) {
    asset.rule_bundle = fillMissing(answer.rule_bundle as JsonObject, { name: `${title} Rules` });
  } else if (baseline.rule_bundle) {
    asset.rule_bundle = structuredClone(baseline.rule_bundle);
  }
  asset.meta_info = metaInfo;
  return asset as SynestheticAsset;
}

function normalizeShader(
  input: JsonObject,
  baseline: SynestheticAsset,
  issues: ShapeIssue[],
): SynestheticAsset["shader"] {
  const base = baseline.shader;
  const shader = fillMissing({ ...input }, {
    name: base.name,
    vertex_shader: base.vertex_shader,
    uniforms: base.uniforms,
    input_parameters: base.input_parameters,
  });
  const baseUniforms = byKey(base.uniforms as unknown as JsonObject[], "name");
  const uniforms = (shader.uniforms as JsonObject[]).map((uniform, index) => {
    const filled = fillMissing({ ...uniform }, baseUniforms.get(String(uniform.name)));
    fillMissing(filled, { type: "float", stage: "fragment" });
    requireFields(
      filled,
      ["name", "type", "stage", "default"],
      `/shader/uniforms/${index}`,
      issues,
    );
    coerceUniformDefault(filled, `/shader/uniforms/${index}/default`, issues);
    return filled as unknown as UniformDef;
  });
  const baseParameters = byKey(base.input_parameters as unknown as JsonObject[], "parameter");
  const parameters = (shader.input_parameters as JsonObject[]).map((parameter, index) => {
    const filled = fillMissing({ ...parameter }, baseParameters.get(String(parameter.parameter)));
    fillMissing(filled, { name: filled.parameter, path: filled.parameter, type: "float" });
    requireFields(
      filled,
      ["name", "parameter", "path", "type", "default", "min", "max"],
      `/shader/input_parameters/${index}`,
      issues,
    );
    return filled as unknown as InputParameter;
  });
  // The Labs spec's minimum: u_px/u_py exist as uniforms and as input parameters.
  for (const name of ["u_px", "u_py"]) {
    if (!uniforms.some((uniform) => uniform.name === name)) {
      uniforms.push(structuredClone(baseUniforms.get(name) as unknown as UniformDef));
    }
    if (!parameters.some((parameter) => parameter.parameter === name)) {
      parameters.push(structuredClone(baseParameters.get(name) as unknown as InputParameter));
    }
  }
  shader.uniforms = uniforms.filter(Boolean);
  shader.input_parameters = parameters.filter(Boolean);
  return shader as unknown as SynestheticAsset["shader"];
}

function normalizeTone(
  input: JsonObject,
  baseline: SynestheticAsset,
  issues: ShapeIssue[],
): SynestheticAsset["tone"] {
  const base = baseline.tone;
  const tone = fillMissing({ ...input }, {
    name: base.name,
    input_parameters: base.input_parameters,
    effects: base.effects,
  });
  const baseParameters = byKey(base.input_parameters as JsonObject[], "parameter");
  tone.input_parameters = (tone.input_parameters as JsonObject[]).map((parameter, index) => {
    const filled = fillMissing({ ...parameter }, baseParameters.get(String(parameter.parameter)));
    const named = typeof filled.parameter === "string";
    fillMissing(filled, {
      name: filled.parameter ?? undefined,
      path: named ? `tone.${filled.parameter}` : undefined,
      type: "float",
    });
    coerceDefault(filled);
    requireFields(
      filled,
      ["name", "path", "type", "default"],
      `/tone/input_parameters/${index}`,
      issues,
    );
    return filled;
  });
  const synth = { ...(tone.synth as JsonObject) };
  const baseOptions = (base.synth as JsonObject).options as JsonObject | undefined;
  // A flat synth (oscillator/envelope/volume beside `type`) is also schema-valid; only a
  // synth that uses `options` or gives nothing gets the baseline's options filled in.
  const flat = ["oscillator", "envelope", "volume"].some((key) => synth[key] !== undefined);
  if (!flat) synth.options = fillMissing({ ...(synth.options as JsonObject ?? {}) }, baseOptions);
  // Tone.js takes numbers for volume, detune, envelope times…: "0.1" would reach the
  // synth as a string. Numeric strings become numbers; words ("sine") stay words.
  tone.synth = coerceNumericStrings(synth) as JsonObject;
  if (Array.isArray(tone.effects)) {
    tone.effects = (tone.effects as JsonObject[]).map((effect) =>
      coerceNumericStrings(effect) as JsonObject
    );
  }
  return tone as SynestheticAsset["tone"];
}

function normalizeHaptic(
  input: JsonObject,
  baseline: SynestheticAsset,
  issues: ShapeIssue[],
): SynestheticAsset["haptic"] {
  const base = baseline.haptic;
  const { intensity, ...rest } = input;
  const haptic = fillMissing(rest, {
    name: base.name,
    device: base.device,
    input_parameters: base.input_parameters,
  });
  const device = haptic.device as JsonObject;
  if (device.options === undefined) {
    device.options = structuredClone((base.device as JsonObject).options ?? {});
  }
  const baseParameters = byKey(base.input_parameters as unknown as JsonObject[], "parameter");
  const parameters = (haptic.input_parameters as JsonObject[]).map((parameter, index) => {
    const filled = fillMissing({ ...parameter }, baseParameters.get(String(parameter.parameter)));
    fillMissing(filled, {
      name: filled.parameter,
      path: filled.parameter,
      type: "float",
      unit: "linear",
    });
    coerceDefault(filled);
    requireFields(
      filled,
      ["name", "parameter", "path", "type", "unit", "default"],
      `/haptic/input_parameters/${index}`,
      issues,
    );
    return filled;
  });
  let intensityParameter = parameters.find((parameter) =>
    parameter.parameter === "haptic.intensity"
  );
  if (!intensityParameter) {
    intensityParameter = structuredClone(
      baseParameters.get("haptic.intensity") ?? {
        name: "Intensity",
        parameter: "haptic.intensity",
        path: "haptic.intensity",
        type: "float",
        unit: "linear",
        default: 0.5,
        min: 0,
        max: 1,
      },
    );
    parameters.push(intensityParameter);
  }
  if (typeof intensity === "number") intensityParameter.default = intensity;
  haptic.input_parameters = parameters;
  return haptic as SynestheticAsset["haptic"];
}

function normalizeControls(
  input: JsonObject,
  baseline: SynestheticAsset,
  issues: ShapeIssue[],
): SynestheticAsset["control"] {
  const base = baseline.control;
  const bundle = fillMissing({ ...input }, { name: base.name });
  const baseControls = base.control_parameters;
  const parameters = (bundle.control_parameters as JsonObject[]).map((item, index) => {
    const baseItem = baseControls.find((control) => control.parameter === item.parameter);
    const filled = fillMissing(
      { ...item },
      baseItem ? { ...baseItem, mappings: undefined } : undefined,
    );
    fillMissing(filled, {
      label: filled.parameter,
      type: "float",
      unit: "linear",
      default: typeof filled.min === "number" ? filled.min : 0,
    });
    coerceDefault(filled);
    filled.mappings = (filled.mappings as JsonObject[]).map((mapping) => {
      const action = mapping.action as JsonObject;
      return {
        combo: mapping.combo ??
          (action.axis === "mouse.wheel" ? { wheel: true } : { mouseButtons: ["left"] }),
        ...mapping,
      };
    });
    requireFields(
      filled,
      ["parameter", "label", "type", "unit", "default", "mappings"],
      `/control/control_parameters/${index}`,
      issues,
    );
    return filled as unknown as ControlParameter;
  });
  const has = (parameter: string, axis: string, inverted: boolean) =>
    parameters.some((control) =>
      control.parameter === parameter &&
      control.mappings.some((mapping) =>
        mapping.action.axis === axis && (inverted ? mapping.action.sensitivity < 0 : true)
      )
    );
  // The Labs spec's minimum controls: mouse.x → shader.u_px, mouse.y (inverted) → shader.u_py.
  if (!has("shader.u_px", "mouse.x", false)) {
    const fallback = baseControls.find((control) => control.parameter === "shader.u_px");
    if (fallback) parameters.unshift(structuredClone(fallback));
  }
  if (!has("shader.u_py", "mouse.y", true)) {
    const fallback = baseControls.find((control) => control.parameter === "shader.u_py");
    if (fallback) parameters.splice(1, 0, structuredClone(fallback));
  }
  bundle.control_parameters = parameters;
  return bundle as unknown as SynestheticAsset["control"];
}
