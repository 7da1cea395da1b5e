// The control bundle's gestures: which mappings a held combo activates and how far an axis
// movement moves a value. Plain browser module, also imported by the Deno tests.

import { finite } from "./modulation.js";

const KEY_ALIASES = { ctrl: "control", cmd: "meta", command: "meta", option: "alt", " ": "space" };

/**
 * A key name as the combos compare it: lower case, with Ctrl/Cmd/Option spelled as the
 * browser's KeyboardEvent.key spells them.
 * @param {string} key
 */
export function normalizeKey(key) {
  const lower = String(key).toLowerCase();
  return KEY_ALIASES[/** @type {keyof typeof KEY_ALIASES} */ (lower)] ?? lower;
}

/** The mouse button names of MouseEvent.button 0, 1 and 2. */
export const BUTTON_NAMES = ["left", "middle", "right"];

/**
 * Whether a mapping's combo holds: every key and mouse button it names is down, the wheel
 * turns when it asks for the wheel, and with `strict` nothing else is held.
 * @param {Record<string, unknown> | undefined} combo
 * @param {{keys: Set<string>, buttons: Set<string>, wheel: boolean}} held
 */
export function comboActive(combo, held) {
  const keys = listOf(combo?.keys).map(normalizeKey);
  const buttons = listOf(combo?.mouseButtons).map((button) => String(button).toLowerCase());
  if (combo?.wheel === true && !held.wheel) return false;
  if (!keys.every((key) => held.keys.has(key))) return false;
  if (!buttons.every((button) => held.buttons.has(button))) return false;
  if (combo?.strict === true) {
    if ([...held.keys].some((key) => !keys.includes(key))) return false;
    if ([...held.buttons].some((button) => !buttons.includes(button))) return false;
  }
  return true;
}

/**
 * How far one movement of `delta` axis units (pixels, or wheel delta) moves the value:
 * delta × sensitivity × scale, shaped by the curve. `exponential` grows with the speed of
 * the movement, `sine` eases large movements, `discrete` moves whole `step`s.
 * @param {Record<string, unknown>} action
 * @param {number} delta
 * @param {number | undefined} step
 */
export function axisChange(action, delta, step) {
  const shaped = curveOf(String(action.curve ?? "linear"), delta);
  const change = shaped * finite(action.sensitivity, 0) * finite(action.scale, 1);
  if (action.curve !== "discrete" || !step || change === 0) return change;
  return Math.sign(change) * Math.max(1, Math.round(Math.abs(change) / step)) * step;
}

/** @param {string} curve @param {number} delta */
function curveOf(curve, delta) {
  switch (curve) {
    case "exponential":
      return delta * (1 + Math.abs(delta) / 10);
    case "sine":
      return 20 * Math.sin(Math.max(-1, Math.min(1, delta / 20)) * Math.PI / 2);
    default:
      return delta;
  }
}

/**
 * A mapping in words for the page: `hold Shift + left mouse · mouse.y × -0.005 (inverted:
 * up increases)`.
 * @param {Record<string, any>} mapping
 */
export function describeMapping(mapping) {
  const combo = mapping?.combo ?? {};
  const action = mapping?.action ?? {};
  const parts = [
    ...listOf(combo.keys).map(String),
    ...listOf(combo.mouseButtons).map((button) => `${button} mouse`),
    ...(combo.wheel === true ? ["wheel"] : []),
  ];
  const hold = parts.length > 0 ? `hold ${parts.join(" + ")}${combo.strict ? " only" : ""}` : "";
  const sensitivity = finite(action.sensitivity, 0) * finite(action.scale, 1);
  const inverted = sensitivity < 0
    ? action.axis === "mouse.y" ? " (inverted: up increases)" : " (inverted)"
    : "";
  const curve = action.curve && action.curve !== "linear" ? `, ${action.curve}` : "";
  const gesture = `${action.axis ?? "?"} × ${sensitivity}${curve}${inverted}`;
  return hold ? `${hold} · ${gesture}` : gesture;
}

/** @param {unknown} value @returns {unknown[]} */
function listOf(value) {
  return Array.isArray(value) ? value : [];
}
