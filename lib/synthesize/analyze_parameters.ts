import { compareCodePoints } from "../core/mod.ts";
/** One call of a sampled chain occurrence. */
export interface SampleStep {
  tool_id: string;
  input_params: Record<string, unknown>;
  output_summary: string | null;
}

/** The deterministic parameter analysis of the synthesis spec. */
export interface ParameterAnalysis {
  external: { name: string; type: string; step: number }[];
  internal_wires: { from_step: number; from_key: string; to_step: number; to_key: string }[];
  constants: { step: number; key: string; value: unknown }[];
  ambiguous: { step: number; key: string }[];
}

const MAX_OUTPUT_VALUES = 10_000;

/**
 * Classifies every input key of every step over the samples (occurrences of one chain):
 * - internal wiring: in (nearly) every sample, the value given to step N+1 appears in step
 *   N's output — as a value inside its JSON (the key is named) or in its text;
 * - constant: the same value in every sample (two or more);
 * - external: a step-0 key that is neither;
 * - ambiguous: anything else (left for the model to resolve).
 * Wiring is found by values, not key names, so it works on real outputs such as
 * tau-bench's, whose outputs are JSON texts with other key names than the next inputs.
 */
export function analyzeParameters(samples: readonly (readonly SampleStep[])[]): ParameterAnalysis {
  const analysis: ParameterAnalysis = {
    external: [],
    internal_wires: [],
    constants: [],
    ambiguous: [],
  };
  const length = Math.min(...samples.map((sample) => sample.length));
  if (!samples.length || !Number.isFinite(length)) return analysis;
  for (let step = 0; step < length; step++) {
    const keys = [
      ...new Set(samples.flatMap((sample) => Object.keys(sample[step].input_params ?? {}))),
    ].sort(compareCodePoints);
    for (const key of keys) {
      const values = samples.map((sample) => sample[step].input_params?.[key]);
      const wire = step > 0 ? wiringOf(samples, step, key) : undefined;
      if (wire !== undefined) {
        analysis.internal_wires.push({
          from_step: step - 1,
          from_key: wire,
          to_step: step,
          to_key: key,
        });
      } else if (samples.length >= 2 && values.every((value) => same(value, values[0]))) {
        analysis.constants.push({ step, key, value: values[0] });
      } else if (step === 0) {
        analysis.external.push({ name: key, type: typeOf(values), step });
      } else {
        analysis.ambiguous.push({ step, key });
      }
    }
  }
  return analysis;
}

/** Share of the samples whose output must carry an input's value for it to count as wired. */
export const WIRING_SHARE = 0.8;

/**
 * The output key (or "(text)") that carries the input in at least `WIRING_SHARE` of the
 * samples that recorded the earlier output (all of them when there are fewer than five),
 * if one does: real sessions have the odd call whose value came from the user instead.
 * The most frequent key wins.
 */
function wiringOf(
  samples: readonly (readonly SampleStep[])[],
  step: number,
  key: string,
): string | undefined {
  const found = new Map<string, number>();
  let seen = 0;
  for (const sample of samples) {
    const output = sample[step - 1].output_summary ?? "";
    // A sample without the earlier output recorded tells nothing about the wiring.
    if (output === "") continue;
    seen++;
    const value = sample[step].input_params?.[key];
    if (value === undefined || value === null || typeof value === "object") continue;
    const text = String(value);
    if (text.length < 2) continue;
    const where = keyHolding(output, text) ?? (output.includes(text) ? "(text)" : undefined);
    if (where !== undefined) found.set(where, (found.get(where) ?? 0) + 1);
  }
  if (seen === 0) return undefined;
  const needed = seen < 5 ? seen : Math.ceil(seen * WIRING_SHARE);
  const best = [...found].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))[0];
  return best && best[1] >= needed ? best[0] : undefined;
}

/**
 * The keys of `output` (parsed as JSON) under which a scalar equal to `text` sits, or whose
 * list holds it, in the order they are met. Empty when `output` is not JSON.
 */
export function keysHolding(output: string, text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return [];
  }
  const found: string[] = [];
  const stack: [unknown, string][] = [[parsed, ""]];
  let seen = 0;
  while (stack.length && seen++ < MAX_OUTPUT_VALUES) {
    const [value, key] = stack.pop()!;
    if (value !== null && typeof value === "object") {
      for (const [child, item] of Object.entries(value)) {
        stack.push([item, Array.isArray(value) ? key : child]);
      }
    } else if (value !== null && String(value) === text && key) found.push(key);
  }
  return found;
}

/** The first key of `output` holding `text` (see `keysHolding`). */
function keyHolding(output: string, text: string): string | undefined {
  return keysHolding(output, text)[0];
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

function typeOf(values: readonly unknown[]): string {
  const types = new Set(
    values.filter((value) => value !== undefined).map((value) =>
      value === null
        ? "null"
        : Array.isArray(value)
        ? "array"
        : typeof value === "object"
        ? "object"
        : typeof value
    ),
  );
  return types.size === 1
    ? [...types][0]
    : [...types].sort(compareCodePoints).join("|") || "unknown";
}
