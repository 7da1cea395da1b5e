/**
 * The rules the schema cannot state — a default inside its own min/max, a haptic
 * intensity inside [0, 1], the types Tone.js needs for the synth options the schema leaves
 * open — written once. Pre-flight turns the bound findings into errors (Labs spec
 * validation step 1); the critic reports them with its own codes. What a valid asset is
 * otherwise is the schema's answer alone (`lib/schema`, through the validator).
 */
import { formatPointer, isRecord } from "../core/mod.ts";
import { REQUIRED_SECTIONS, SYNTH_TYPES } from "./asset.ts";

/** One broken bound: where, which value, and which limit it passes. */
export interface BoundFinding {
  path: string;
  value: number;
  /** `min`/`max`: the item's own limits; `unit`: [0, 1]; `finite`: NaN or ±Infinity. */
  limit: "min" | "max" | "unit" | "finite";
  bound?: number;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** An item's number `key` outside the item's own `min`/`max`. */
function outsideOwnRange(item: Record<string, unknown>, key: string, path: string): BoundFinding[] {
  const value = item[key];
  if (typeof value !== "number") return [];
  if (!Number.isFinite(value)) return [{ path, value, limit: "finite" }];
  const findings: BoundFinding[] = [];
  if (typeof item.min === "number" && value < item.min) {
    findings.push({ path, value, limit: "min", bound: item.min });
  }
  if (typeof item.max === "number" && value > item.max) {
    findings.push({ path, value, limit: "max", bound: item.max });
  }
  return findings;
}

/** Input-parameter defaults (shader, tone, haptic) outside their own min/max. */
export function inputDefaultsOutOfRange(asset: Record<string, unknown>): BoundFinding[] {
  return ["shader", "tone", "haptic"].flatMap((section) => {
    const part = asset[section];
    if (!isRecord(part)) return [];
    return list(part.input_parameters).flatMap((item, index) =>
      isRecord(item)
        ? outsideOwnRange(
          item,
          "default",
          formatPointer([section, "input_parameters", index, "default"]),
        )
        : []
    );
  });
}

/** Control defaults outside their own min/max. */
export function controlDefaultsOutOfRange(asset: Record<string, unknown>): BoundFinding[] {
  const control = isRecord(asset.control) ? asset.control : undefined;
  return list(control?.control_parameters).flatMap((item, index) =>
    isRecord(item)
      ? outsideOwnRange(
        item,
        "default",
        formatPointer(["control", "control_parameters", index, "default"]),
      )
      : []
  );
}

/**
 * Haptic intensities outside [0, 1]: the `haptic.intensity` parameter's fields `keys`
 * (a missing or non-number `default` counts when asked for), and with `device` the
 * device's `maxIntensity`.
 */
export function hapticIntensityOutOfRange(
  asset: Record<string, unknown>,
  keys: readonly string[],
  options: { requireDefault?: boolean; device?: boolean } = {},
): (BoundFinding & { key: string; given: unknown })[] {
  const haptic = isRecord(asset.haptic) ? asset.haptic : undefined;
  if (!haptic) return [];
  const findings: (BoundFinding & { key: string; given: unknown })[] = [];
  list(haptic.input_parameters).forEach((item, index) => {
    if (!isRecord(item) || item.parameter !== "haptic.intensity") return;
    for (const key of keys) {
      const given = item[key];
      const path = formatPointer(["haptic", "input_parameters", index, key]);
      const bad = typeof given === "number"
        ? given < 0 || given > 1
        : options.requireDefault === true && key === "default";
      if (bad) findings.push({ path, value: Number(given), limit: "unit", key, given });
    }
  });
  const device = isRecord(haptic.device) ? haptic.device : {};
  const maxIntensity = isRecord(device.options) ? device.options.maxIntensity : undefined;
  const value = isRecord(maxIntensity) ? maxIntensity.value : undefined;
  if (options.device && typeof value === "number" && (value < 0 || value > 1)) {
    findings.push({
      path: "/haptic/device/options/maxIntensity/value",
      value,
      limit: "unit",
      key: "maxIntensity",
      given: value,
    });
  }
  return findings;
}

/** The sections an asset must have that it lacks (not objects), in the spec's order. */
export function missingSections(asset: Record<string, unknown>): string[] {
  return REQUIRED_SECTIONS.filter((section) => !isRecord(asset[section]));
}

/** The kinds of value Tone.js takes for a synth option. */
export type ToneValueKind = "number" | "decibels" | "time" | "frequency" | "oscillator-type";

/**
 * The synth options whose Tone.js type is known, as paths under `tone.synth.options` (or
 * beside `type` in a flat synth). The schema types only `volume` and `portamento`, loosely.
 */
export const SYNTH_OPTION_TYPES: readonly { path: readonly string[]; kind: ToneValueKind }[] = [
  { path: ["volume"], kind: "decibels" },
  { path: ["detune"], kind: "number" },
  { path: ["portamento"], kind: "time" },
  { path: ["frequency"], kind: "frequency" },
  { path: ["harmonicity"], kind: "number" },
  { path: ["modulationIndex"], kind: "number" },
  { path: ["resonance"], kind: "number" },
  { path: ["dampening"], kind: "frequency" },
  { path: ["oscillator", "type"], kind: "oscillator-type" },
  { path: ["oscillator", "modulationType"], kind: "oscillator-type" },
  { path: ["oscillator", "frequency"], kind: "frequency" },
  { path: ["oscillator", "detune"], kind: "number" },
  { path: ["oscillator", "phase"], kind: "number" },
  { path: ["oscillator", "harmonicity"], kind: "number" },
  { path: ["modulation", "type"], kind: "oscillator-type" },
  ...["envelope", "modulationEnvelope", "filterEnvelope"].flatMap((envelope) => [
    { path: [envelope, "attack"], kind: "time" as const },
    { path: [envelope, "decay"], kind: "time" as const },
    { path: [envelope, "sustain"], kind: "number" as const },
    { path: [envelope, "release"], kind: "time" as const },
  ]),
];

// Tone.js oscillator types: a base wave with an optional partial count, optionally
// prefixed am/fm/fat; or pulse, pwm.
const OSCILLATOR_TYPE = /^(?:(?:am|fm|fat)?(?:sine|square|sawtooth|triangle|custom)\d*|pulse|pwm)$/;

const finite = (value: unknown) => typeof value === "number" && Number.isFinite(value);
const text = (value: unknown) => typeof value === "string" && value.trim() !== "";

/** What each kind accepts, and how a finding names it. */
const KINDS: Readonly<Record<ToneValueKind, { fits: (value: unknown) => boolean; name: string }>> =
  {
    number: { fits: finite, name: "a number" },
    // JSON has no -Infinity: "-inf" is how an asset asks for silence.
    decibels: {
      fits: (value) =>
        finite(value) || (typeof value === "string" && /^-inf(inity)?$/i.test(value)),
      name: "a number of decibels",
    },
    time: { fits: (value) => finite(value) || text(value), name: 'a time (seconds or "8n")' },
    frequency: {
      fits: (value) => finite(value) || text(value),
      name: 'a frequency (Hz or a note such as "C4")',
    },
    "oscillator-type": {
      fits: (value) => typeof value === "string" && OSCILLATOR_TYPE.test(value),
      name: "an oscillator type (sine, square, sawtooth, triangle, am…/fm…/fat…, pulse, pwm)",
    },
  };

/** A synth option of the wrong type: where, what was given, what Tone.js needs. */
export interface TypeFinding {
  path: string;
  given: unknown;
  expected: string;
}

/** The value at `path` under `root`, or `undefined`. */
function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (!isRecord(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * The synth's type outside the nine Tone.js synths, and every known option (see
 * {@linkcode SYNTH_OPTION_TYPES}) whose value Tone.js cannot take. A `{ value, unit }`
 * object, as the schema's reference assets write options, is judged by its `value`.
 */
export function synthOptionTypeFindings(asset: Record<string, unknown>): TypeFinding[] {
  const tone = isRecord(asset.tone) ? asset.tone : undefined;
  const synth = isRecord(tone?.synth) ? tone.synth : undefined;
  if (!synth) return [];
  const findings: TypeFinding[] = [];
  if (typeof synth.type !== "string" || !(SYNTH_TYPES as readonly string[]).includes(synth.type)) {
    findings.push({
      path: "/tone/synth/type",
      given: synth.type,
      expected: `one of ${SYNTH_TYPES.join(", ")}`,
    });
  }
  const roots: [string[], unknown][] = [[["options"], synth.options], [[], synth]];
  for (const [prefix, root] of roots) {
    if (!isRecord(root)) continue;
    for (const { path, kind } of SYNTH_OPTION_TYPES) {
      const given = valueAt(root, path);
      if (given === undefined) continue;
      const value = isRecord(given) && Object.hasOwn(given, "value") ? given.value : given;
      if (KINDS[kind].fits(value)) continue;
      const pointer = formatPointer(["tone", "synth", ...prefix, ...path]);
      findings.push({ path: pointer, given, expected: KINDS[kind].name });
    }
  }
  return findings;
}
