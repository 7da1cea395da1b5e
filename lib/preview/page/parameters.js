// The asset's parameters in one table keyed by path (`shader.u_px`, `tone.volume`,
// `haptic.intensity`): uniform defaults, input parameters (sliders), control mappings and
// modulations, and the live values they produce. Plain module, also imported by Deno tests.

import { finite, modulate } from "./modulation.js";

const SECTIONS = ["shader", "tone", "haptic"];

/**
 * A parameter path as a key of the table: paths that already name a section stay; a bare
 * uniform name (`u_r`, as some modulations write it) is the shader's.
 * @param {unknown} path
 * @param {Set<string>} uniformNames
 */
export function parameterKey(path, uniformNames) {
  const text = String(path ?? "").trim();
  if (SECTIONS.some((section) => text.startsWith(`${section}.`))) return text;
  if (uniformNames.has(text) || /^u_\w+$/.test(text)) return `shader.${text}`;
  return text;
}

/**
 * @typedef {object} Parameter
 * @property {string} key
 * @property {string} label
 * @property {string} type      float, int, bool, vec2…
 * @property {unknown} initial  the default
 * @property {number | undefined} min
 * @property {number | undefined} max
 * @property {number | undefined} step
 * @property {string} unit
 * @property {number} smoothing seconds
 * @property {boolean} slider   an input parameter or a control: shown with a slider
 * @property {Record<string, any>[]} mappings
 * @property {Record<string, any>[]} modulations
 */

/**
 * Every parameter of an asset (or of a lone shader, tone or haptic document).
 * @param {Record<string, any>} asset
 * @returns {Map<string, Parameter>}
 */
export function collectParameters(asset) {
  const shader = objectOr(asset.shader);
  const uniforms = listOf(shader.uniforms);
  const names = new Set(uniforms.map((uniform) => String(uniform?.name)));
  /** @type {Map<string, Parameter>} */
  const table = new Map();
  const add = (/** @type {string} */ key, /** @type {Record<string, any>} */ fields) => {
    const old = table.get(key);
    table.set(key, {
      key,
      label: fields.label ?? old?.label ?? key,
      type: String(fields.type ?? old?.type ?? "float"),
      initial: fields.initial !== undefined ? fields.initial : old?.initial,
      min: numberOr(fields.min, old?.min),
      max: numberOr(fields.max, old?.max),
      step: numberOr(fields.step, old?.step),
      unit: String(fields.unit ?? old?.unit ?? ""),
      smoothing: finite(fields.smoothing, old?.smoothing ?? 0),
      slider: Boolean(fields.slider || old?.slider),
      mappings: [...(old?.mappings ?? []), ...listOf(fields.mappings)],
      modulations: old?.modulations ?? [],
    });
  };
  for (const uniform of uniforms) {
    add(`shader.${uniform?.name}`, {
      label: uniform?.name,
      type: uniform?.type,
      initial: uniform?.default,
    });
  }
  const input = (/** @type {unknown} */ list, /** @type {(p: any) => string} */ keyOf) => {
    for (const p of listOf(list)) {
      add(keyOf(p), {
        label: p?.name,
        type: p?.type,
        initial: p?.default,
        min: p?.min,
        max: p?.max,
        step: p?.step,
        unit: p?.unit,
        smoothing: p?.smoothingTime,
        slider: true,
      });
    }
  };
  input(shader.input_parameters, (p) => parameterKey(p?.parameter ?? p?.path, names));
  const tone = objectOr(asset.tone);
  input(
    tone.input_parameters,
    (p) => String(p?.path ?? "").startsWith("tone.") ? p.path : `tone.${p?.parameter}`,
  );
  const haptic = objectOr(asset.haptic);
  input(
    haptic.input_parameters,
    (p) =>
      String(p?.parameter ?? "").startsWith("haptic.") ? p.parameter : `haptic.${p?.parameter}`,
  );
  for (const control of listOf(objectOr(asset.control).control_parameters)) {
    add(parameterKey(control?.parameter, names), {
      label: control?.label,
      type: control?.type,
      initial: control?.default,
      min: control?.min,
      max: control?.max,
      step: control?.step,
      unit: control?.unit,
      smoothing: control?.smoothingTime,
      slider: true,
      mappings: control?.mappings,
    });
  }
  for (const modulation of listOf(asset.modulations)) {
    const key = parameterKey(modulation?.target, names);
    if (!table.has(key)) add(key, { label: key, initial: 0 });
    table.get(key)?.modulations.push(modulation);
  }
  return table;
}

/**
 * Whether a key names something the preview drives: a uniform of the shader, a tone or a
 * haptic parameter. Controls aimed elsewhere (`visual.px`) are shown as not bound.
 * @param {string} key
 */
export function isBound(key) {
  return SECTIONS.some((section) => key.startsWith(`${section}.`));
}

/** The live values of a parameter table: targets set by sliders, controls and rules,
 * smoothed toward over `smoothing` seconds, with modulations applied on top. */
export class ParameterState {
  /** @param {Map<string, Parameter>} table */
  constructor(table) {
    this.table = table;
    /** @type {Map<string, unknown>} */
    this.target = new Map();
    /** @type {Map<string, unknown>} */
    this.current = new Map();
    for (const [key, parameter] of table) {
      this.target.set(key, parameter.initial);
      this.current.set(key, parameter.initial);
    }
  }

  /**
   * Sets a target value, kept within the parameter's min/max (ints rounded).
   * @param {string} key
   * @param {unknown} value
   */
  set(key, value) {
    const parameter = this.table.get(key);
    if (!parameter) return;
    this.target.set(key, typeof value === "number" ? this.clamp(parameter, value) : value);
  }

  /**
   * Moves a numeric target by `change`.
   * @param {string} key
   * @param {number} change
   */
  nudge(key, change) {
    const now = this.target.get(key);
    if (typeof now === "number") this.set(key, now + change);
  }

  /** @param {Parameter} parameter @param {number} value */
  clamp(parameter, value) {
    let result = value;
    if (parameter.min !== undefined) result = Math.max(parameter.min, result);
    if (parameter.max !== undefined) result = Math.min(parameter.max, result);
    return parameter.type === "int" ? Math.round(result) : result;
  }

  /**
   * Puts one parameter at its target at once (a rule's effect is a step, not a glide).
   * @param {string} key
   */
  jump(key) {
    if (this.table.has(key)) this.current.set(key, this.target.get(key));
  }

  /**
   * Advances smoothing by `dt` seconds (`Infinity` jumps to the targets).
   * @param {number} dt
   */
  tick(dt) {
    for (const [key, parameter] of this.table) {
      const target = this.target.get(key);
      const now = this.current.get(key);
      if (typeof target !== "number" || typeof now !== "number" || parameter.smoothing <= 0) {
        this.current.set(key, target);
        continue;
      }
      const follow = dt === Infinity ? 1 : 1 - Math.exp(-dt / parameter.smoothing);
      this.current.set(key, now + (target - now) * follow);
    }
  }

  /**
   * The value at `seconds`: the smoothed value with its modulations applied.
   * @param {string} key
   * @param {number} seconds
   * @returns {unknown}
   */
  value(key, seconds) {
    const now = this.current.get(key);
    const parameter = this.table.get(key);
    if (typeof now !== "number" || !parameter || parameter.modulations.length === 0) return now;
    return modulate(now, parameter.modulations, seconds);
  }
}

/** @param {unknown} value @returns {Record<string, any>} */
function objectOr(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? /** @type {Record<string, any>} */ (value)
    : {};
}

/** @param {unknown} value @returns {any[]} */
function listOf(value) {
  return Array.isArray(value) ? value : [];
}

/** @param {unknown} value @param {number | undefined} fallback */
function numberOr(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/**
 * A parameter's value as the page shows it: whole numbers from 100 up, else three
 * decimals; anything else as JSON.
 * @param {unknown} value
 */
export function formatValue(value) {
  if (typeof value !== "number") return JSON.stringify(value) ?? "";
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3);
}
