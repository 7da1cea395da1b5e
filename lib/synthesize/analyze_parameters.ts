import { compareCodePoints, isSecretName } from "../core/mod.ts";
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

/** What the analysis knows beyond the chain's own calls. */
export interface AnalysisOptions {
  /**
   * Per sample (same order), the outputs of the calls its session made before the chain:
   * a value one of them returned is the session's, not the task's, so never a constant.
   */
  earlierOutputs?: readonly (readonly (string | null)[])[];
}

/**
 * Classifies every input key of every step over the samples (occurrences of one chain):
 * - internal wiring: in (nearly) every sample, the value given to step N appears in the
 *   output of an earlier step — as a value inside its JSON (the key is named) or in its
 *   text; of several earlier steps that hold it, the nearest;
 * - constant: only where it is the task's: the same value in every sample (two or more,
 *   every one of them giving it), under a name that is not secret (`isSecretName`), and
 *   returned by no earlier call of the sample's session (then it is the session's);
 * - external: a step-0 key that is neither;
 * - ambiguous: anything else (a parameter of its own, or left for the model to resolve).
 * A secret-named key is always external or ambiguous: a credential one session sent is
 * never sent again on behalf of another. Wiring is found by values, not key names, so it
 * works on real outputs such as tau-bench's, whose outputs are JSON texts with other key
 * names than the next inputs.
 */
export function analyzeParameters(
  samples: readonly (readonly SampleStep[])[],
  options: AnalysisOptions = {},
): ParameterAnalysis {
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
      const secret = isSecretName(key);
      const wire = secret ? undefined : nearestWire(samples, step, key);
      if (wire !== undefined) {
        analysis.internal_wires.push({ ...wire, to_step: step, to_key: key });
      } else if (!secret && isTaskConstant(samples, step, key, options)) {
        analysis.constants.push({ step, key, value: samples[0][step].input_params[key] });
      } else if (step === 0) {
        const values = samples.map((sample) => sample[step].input_params?.[key]);
        analysis.external.push({ name: key, type: typeOf(values), step });
      } else {
        analysis.ambiguous.push({ step, key });
      }
    }
  }
  return analysis;
}

/** The nearest earlier step whose output carries the input (see `wiringOf`), if one does. */
function nearestWire(
  samples: readonly (readonly SampleStep[])[],
  step: number,
  key: string,
): { from_step: number; from_key: string } | undefined {
  for (let from = step - 1; from >= 0; from--) {
    const fromKey = wiringOf(samples, from, step, key);
    if (fromKey !== undefined) return { from_step: from, from_key: fromKey };
  }
  return undefined;
}

/**
 * Whether the value of `key` at `step` is the task's constant: every sample (two or more)
 * gives the same value, and no call before it in any sample's session returned it.
 */
function isTaskConstant(
  samples: readonly (readonly SampleStep[])[],
  step: number,
  key: string,
  options: AnalysisOptions,
): boolean {
  if (samples.length < 2) return false;
  const values = samples.map((sample) => sample[step].input_params?.[key]);
  if (values.some((value) => value === undefined || !same(value, values[0]))) return false;
  return samples.every((sample, index) => {
    const before = [
      ...(options.earlierOutputs?.[index] ?? []),
      ...sample.slice(0, step).map((call) => call.output_summary),
    ];
    return !before.some((output) => returnedBy(output, values[0]));
  });
}

/**
 * Whether an output returned `value`: a scalar of its JSON equal to it, or — in plain text —
 * the value as a token of its own (3+ characters, not part of a longer word, number or path:
 * `/srv/notes` is not returned by an error about `/srv/notes/a.txt`).
 */
export function returnedBy(output: string | null, value: unknown): boolean {
  if (output === null || output === "") return false;
  if (typeof value !== "string" && typeof value !== "number") return false;
  const text = String(value);
  if (text.length < 2) return false;
  if (keysHolding(output, text).length > 0) return true;
  if (text.length < 3 || !output.includes(text)) return false;
  const escaped = text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
  return new RegExp(`(?<![\\w/.-])${escaped}(?![\\w/-]|\\.\\w)`).test(output);
}

/** Share of the samples whose output must carry an input's value for it to count as wired. */
export const WIRING_SHARE = 0.8;

/**
 * The key of step `from`'s output (or "(text)") that carries step `step`'s input in at
 * least `WIRING_SHARE` of the samples that recorded that output (all of them when there are fewer than five),
 * if one does: real sessions have the odd call whose value came from the user instead.
 * The most frequent key wins.
 */
function wiringOf(
  samples: readonly (readonly SampleStep[])[],
  from: number,
  step: number,
  key: string,
): string | undefined {
  const found = new Map<string, number>();
  let seen = 0;
  for (const sample of samples) {
    const output = sample[from].output_summary ?? "";
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

/** The JSON type of the values given (`string`, `number|string`…), `undefined`s aside. */
export function typeOf(values: readonly unknown[]): string {
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
