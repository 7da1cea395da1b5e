/**
 * The canonical-baseline fill of the Labs normalization contract: sections and optional
 * fields an answer left out come from the baseline asset (items matched by name or
 * parameter), never what the answer gave. Only objects are filled: a value of the wrong
 * kind stays as it is, for the schema check to report.
 */
import { isRecord } from "../core/mod.ts";
import { type JsonObject, REQUIRED_SECTIONS, type SynestheticAsset } from "./asset.ts";
import type { PromptFeatures } from "./_prompt_features.ts";

/** Fills the keys `target` lacks (or has as undefined) from `defaults`, deep-copied. */
export function fillMissing(target: JsonObject, defaults: JsonObject | undefined): void {
  if (!defaults) return;
  for (const [key, value] of Object.entries(defaults)) {
    if (target[key] === undefined && value !== undefined) target[key] = structuredClone(value);
  }
}

/** Calls `fill` for each object in `list`, if `list` is an array. */
export function eachRecord(list: unknown, fill: (item: JsonObject, index: number) => void): void {
  if (!Array.isArray(list)) return;
  list.forEach((item, index) => isRecord(item) && fill(item, index));
}

/** Items of a baseline list by a string key (`name`, `parameter`). */
export function byKey(items: unknown, key: string): Map<string, JsonObject> {
  const map = new Map<string, JsonObject>();
  eachRecord(items, (item) => typeof item[key] === "string" && map.set(item[key], item));
  return map;
}

/**
 * Fills the five Labs sections: a missing (or `null`) one whole from the baseline, named
 * in `filled`; a given one field by field.
 */
export function fillSections(
  asset: JsonObject,
  baseline: SynestheticAsset,
  filled?: string[],
): void {
  for (const section of REQUIRED_SECTIONS) {
    if (asset[section] != null) continue;
    asset[section] = section === "meta_info" ? {} : structuredClone(baseline[section]);
    filled?.push(section);
  }
  fillShader(asset.shader, baseline.shader);
  fillTone(asset.tone, baseline.tone);
  fillHaptic(asset.haptic, baseline.haptic);
  fillControl(asset.control, baseline.control);
}

function fillShader(shader: unknown, base: SynestheticAsset["shader"]): void {
  if (!isRecord(shader)) return;
  fillMissing(shader, { name: base.name, vertex_shader: base.vertex_shader });
  // The Labs spec requires uniforms and input parameters; the schema's `null` means none given.
  shader.uniforms ??= structuredClone(base.uniforms);
  shader.input_parameters ??= structuredClone(base.input_parameters);
  const uniforms = byKey(base.uniforms, "name");
  eachRecord(shader.uniforms, (uniform) => {
    fillMissing(uniform, uniforms.get(String(uniform.name)));
    fillMissing(uniform, { type: "float", stage: "fragment" });
  });
  const parameters = byKey(base.input_parameters, "parameter");
  eachRecord(shader.input_parameters, (parameter) => {
    fillMissing(parameter, parameters.get(String(parameter.parameter)));
    fillMissing(parameter, { name: parameter.parameter, path: parameter.parameter, type: "float" });
  });
}

function fillTone(tone: unknown, base: SynestheticAsset["tone"]): void {
  if (!isRecord(tone)) return;
  fillMissing(tone, {
    name: base.name,
    input_parameters: base.input_parameters,
    effects: base.effects,
  });
  const parameters = byKey(base.input_parameters, "parameter");
  eachRecord(tone.input_parameters, (parameter) => {
    fillMissing(parameter, parameters.get(String(parameter.parameter)));
    const named = typeof parameter.parameter === "string";
    fillMissing(parameter, {
      name: parameter.parameter ?? undefined,
      path: named ? `tone.${parameter.parameter}` : undefined,
      type: "float",
    });
  });
  if (isRecord(tone.synth)) fillSynthOptions(tone.synth, base.synth);
}

/**
 * A flat synth (oscillator/envelope/volume beside `type`) is also schema-valid; only a
 * synth that uses `options` or gives nothing gets the baseline's options filled in.
 */
function fillSynthOptions(synth: JsonObject, base: JsonObject): void {
  if (["oscillator", "envelope", "volume"].some((key) => synth[key] !== undefined)) return;
  synth.options ??= {};
  if (isRecord(synth.options) && isRecord(base.options)) fillMissing(synth.options, base.options);
}

/** The Labs spec's haptic intensity parameter, when the baseline has none. */
const INTENSITY_PARAMETER: JsonObject = Object.freeze({
  name: "Intensity",
  parameter: "haptic.intensity",
  path: "haptic.intensity",
  type: "float",
  unit: "linear",
  default: 0.5,
  min: 0,
  max: 1,
});

function fillHaptic(haptic: unknown, base: SynestheticAsset["haptic"]): void {
  if (!isRecord(haptic)) return;
  fillMissing(haptic, {
    name: base.name,
    device: base.device,
    input_parameters: base.input_parameters,
  });
  if (isRecord(haptic.device) && haptic.device.options === undefined) {
    haptic.device.options = structuredClone(base.device.options ?? {});
  }
  const parameters = byKey(base.input_parameters, "parameter");
  eachRecord(haptic.input_parameters, (parameter) => {
    fillMissing(parameter, parameters.get(String(parameter.parameter)));
    fillMissing(parameter, {
      name: parameter.parameter,
      path: parameter.parameter,
      type: "float",
      unit: "linear",
    });
  });
  const list = haptic.input_parameters;
  const intensity = (item: unknown) => isRecord(item) && item.parameter === "haptic.intensity";
  if (Array.isArray(list) && !list.some(intensity)) {
    list.push(structuredClone(parameters.get("haptic.intensity") ?? INTENSITY_PARAMETER));
  }
}

function fillControl(bundle: unknown, base: SynestheticAsset["control"]): void {
  if (!isRecord(bundle)) return;
  fillMissing(bundle, { name: base.name });
  eachRecord(bundle.control_parameters, (control) => {
    const known = base.control_parameters.find((item) => item.parameter === control.parameter);
    fillMissing(control, known ? { ...known, mappings: undefined } : undefined);
    fillMissing(control, {
      label: control.parameter,
      type: "float",
      unit: "linear",
      default: typeof control.min === "number" ? control.min : 0,
    });
    eachRecord(control.mappings, fillCombo);
  });
}

/** A mapping without a combo: the wheel for a wheel axis, the left button otherwise. */
function fillCombo(mapping: JsonObject): void {
  if (mapping.combo !== undefined) return;
  const axis = isRecord(mapping.action) ? mapping.action.axis : undefined;
  mapping.combo = axis === "mouse.wheel" ? { wheel: true } : { mouseButtons: ["left"] };
}

/**
 * `meta_info` (title, description, `category: "multimodal"`, complexity, tags), the
 * asset's name and description: from the answer, else the prompt, else the baseline.
 */
export function fillNames(
  asset: JsonObject,
  baseline: SynestheticAsset,
  features: PromptFeatures,
): void {
  const meta = isRecord(asset.meta_info) ? asset.meta_info : {};
  const title = text(meta.title) ?? text(asset.name) ?? features.title ?? baseline.name;
  const description = text(meta.description) ?? text(asset.description) ??
    (features.excerpt || baseline.meta_info.description);
  const promptTags = features.tagWords.slice(0, 8);
  if (isRecord(asset.meta_info)) {
    asset.meta_info = {
      ...meta,
      title,
      description,
      category: "multimodal",
      complexity: meta.complexity ?? baseline.meta_info.complexity ?? "medium",
      tags: meta.tags ?? (promptTags.length ? promptTags : [...baseline.meta_info.tags]),
    };
  }
  if (!text(asset.name)?.trim()) asset.name = title;
  asset.description ??= description;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * `modulations` and `rule_bundle` when the answer has none; baseline modulations that
 * target a shader uniform the asset lacks are left out.
 */
export function fillExtras(asset: JsonObject, baseline: SynestheticAsset): void {
  if (asset.modulations === undefined) {
    const uniforms = new Set(["u_px", "u_py"]);
    eachRecord((asset.shader as JsonObject | undefined)?.uniforms, (uniform) => {
      uniforms.add(String(uniform.name));
    });
    asset.modulations = structuredClone(baseline.modulations ?? []).filter((modulation) => {
      const target = String(modulation.target);
      return !target.startsWith("shader.") || uniforms.has(target.slice(7));
    });
  }
  if (isRecord(asset.rule_bundle)) {
    const title = isRecord(asset.meta_info) ? asset.meta_info.title : asset.name;
    fillMissing(asset.rule_bundle, { name: `${String(title)} Rules` });
  } else if (asset.rule_bundle === undefined && baseline.rule_bundle) {
    asset.rule_bundle = structuredClone(baseline.rule_bundle);
  }
}
