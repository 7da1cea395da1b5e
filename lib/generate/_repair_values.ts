/**
 * Repairs of values the schema leaves open but the players need in one form: a uniform's
 * default in the form its GLSL type takes, a parameter's default by its declared `type`,
 * Tone.js options as numbers. Each reads the value's own declaration, never a guess.
 */
import { isRecord, setOwn } from "../core/mod.ts";
import { numericString, type ValidationIssue } from "../schema/mod.ts";
import type { JsonObject } from "./asset.ts";
import { eachRecord } from "./_fill_from_baseline.ts";

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

function toNumber(item: unknown): number | undefined {
  return typeof item === "number" ? item : numericString(item);
}

/**
 * A uniform's default as its GLSL type needs it: `float`/`int` a number, `vecN` N
 * numbers. Numeric strings and, for `vec3`/`vec4`, hex colours are converted; anything
 * else of the wrong kind is an issue, never passed through to the shader.
 */
export function repairUniformDefaults(shader: unknown, issues: ValidationIssue[]): void {
  if (!isRecord(shader)) return;
  eachRecord(shader.uniforms, (uniform, index) => {
    const path = `/shader/uniforms/${index}/default`;
    const type = String(uniform.type);
    const value = uniform.default;
    if (value === undefined || value === null) return;
    if (type === "float" || type === "int") {
      const number = toNumber(value);
      if (number === undefined) {
        issues.push({ path, msg: `must be a number for a ${type} uniform` });
      } else uniform.default = number;
      return;
    }
    const length = VECTOR_LENGTHS[type];
    if (length === undefined) return;
    const numbers = Array.isArray(value) ? value.map(toNumber) : hexColorChannels(value, length);
    if (numbers?.length !== length || numbers.some((number) => number === undefined)) {
      issues.push({ path, msg: `must be ${length} numbers for a ${type} uniform` });
      return;
    }
    uniform.default = numbers;
  });
}

/**
 * A control's or parameter's `default` may be a string (for `type: "string"`), so a
 * numeric string there becomes a number only once the item declares itself numeric:
 * `float`, or `int` with an integral value.
 */
export function repairDeclaredDefaults(list: unknown): void {
  eachRecord(list, (item) => {
    const number = numericString(item.default);
    if (number === undefined) return;
    if (item.type === "float" || (item.type === "int" && Number.isInteger(number))) {
      item.default = number;
    }
  });
}

/**
 * Tone.js takes numbers for volume, detune, envelope times…: "0.1" would reach the synth
 * as a string. In the synth and each effect, numeric strings become numbers at any depth;
 * words ("sine") and every `type` stay as given.
 */
export function repairToneNumbers(tone: unknown): void {
  if (!isRecord(tone)) return;
  if (isRecord(tone.synth)) tone.synth = numbersOf(tone.synth);
  if (Array.isArray(tone.effects)) tone.effects = tone.effects.map(numbersOf);
}

function numbersOf(value: unknown): unknown {
  const number = numericString(value);
  if (number !== undefined) return number;
  if (Array.isArray(value)) return value.map(numbersOf);
  if (!isRecord(value)) return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(copy, key, key === "type" ? item : numbersOf(item));
  }
  return copy;
}
