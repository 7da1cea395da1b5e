/**
 * Sample retrieval and the offline synthesizer: a `SynthesizedTool` built from the
 * parameter analysis alone (no model, no key), so the whole pipeline runs out of the box.
 */
import { analyzeParameters, type ParameterAnalysis, typeOf } from "./analyze_parameters.ts";
import type { EventStore } from "./event_store.ts";
import type { MinedChain } from "./mine_chains.ts";
import {
  type ErrorStrategy,
  type StepInput,
  type SynthesizedTool,
  toolIdFor,
  withParallelism,
} from "./synthesized_tool.ts";
import type { ToolOutcome } from "./tool_event.ts";
import { withinDepth } from "./_json_depth.ts";

/** One occurrence of the chain, as the spec's `SynthesisSample`. */
export interface ChainSample {
  session_id: string;
  /**
   * The outputs of the calls the session made before the chain (the newest
   * `MAX_EARLIER_OUTPUTS`): a value one of them returned is never a constant.
   */
  earlier_outputs?: (string | null)[];
  tools: {
    tool_id: string;
    input_params: Record<string, unknown>;
    output_summary: string | null;
    outcome: ToolOutcome;
    latency_ms: number;
  }[];
}

/** The chain as synthesis reads it. */
export type ChainInfo = Pick<MinedChain, "tools" | "support" | "confidence" | "avg_latency_ms">;

/** How many of a session's calls before the chain a sample keeps the outputs of. */
export const MAX_EARLIER_OUTPUTS = 200;

/**
 * The spec's sample retrieval: for each sample event, its whole session, and in it the
 * run of the chain's tools that starts at that event. Samples that no longer match are
 * left out.
 */
export async function retrieveSamples(
  store: EventStore,
  chain: Pick<MinedChain, "tools" | "sample_event_ids">,
): Promise<ChainSample[]> {
  const samples: ChainSample[] = [];
  for (const eventId of chain.sample_event_ids) {
    const first = await store.get(eventId);
    if (!first) continue;
    const events = await store.getBySession(first.session_id);
    const start = events.findIndex((event) => event.event_id === eventId);
    const run = events.slice(start, start + chain.tools.length);
    if (start < 0 || run.length !== chain.tools.length) continue;
    if (run.some((event, index) => event.tool_id !== chain.tools[index])) continue;
    // Events may come from elsewhere than ingest (a recording proxy): too deep to analyse.
    if (!run.every((event) => withinDepth(event.input_params))) continue;
    samples.push({
      session_id: first.session_id,
      earlier_outputs: events.slice(Math.max(0, start - MAX_EARLIER_OUTPUTS), start)
        .map((event) => event.output_summary),
      tools: run.map((event) => ({
        tool_id: event.tool_id,
        input_params: event.input_params,
        output_summary: event.output_summary,
        outcome: event.outcome,
        latency_ms: event.latency_ms,
      })),
    });
  }
  return samples;
}

const JSON_TYPES = new Set(["string", "number", "boolean", "object", "array", "null"]);

/** A JSON Schema for a parameter of the analysis's type (`string`, `number|string`…). */
function schemaOfType(type: string): Record<string, unknown> {
  const types = type.split("|").filter((name) => JSON_TYPES.has(name));
  if (!types.length) return {};
  return { type: types.length === 1 ? types[0] : types };
}

/**
 * The spec's error strategy from observed failures: a step that fails while the chain
 * still succeeds is skipped; one after which the chain always fails aborts; one that
 * fails in fewer than half the samples is retried with exponential backoff. Steps never
 * seen failing abort (fail-safe default).
 */
export function errorStrategyFor(samples: readonly ChainSample[]): ErrorStrategy {
  const strategy: Required<ErrorStrategy> = {
    default_behavior: "abort",
    retry_policy: [],
    fallback_steps: [],
    abort_conditions: [],
  };
  const steps = Math.min(...samples.map((sample) => sample.tools.length));
  for (let step = 0; Number.isFinite(steps) && step < steps; step++) {
    const failing = samples.filter((sample) => sample.tools[step].outcome !== "SUCCESS");
    if (!failing.length) continue;
    const last = (sample: ChainSample) => sample.tools[sample.tools.length - 1].outcome;
    const outcomes = [...new Set(failing.map((sample) => sample.tools[step].outcome))] as (
      | "FAILURE"
      | "TIMEOUT"
    )[];
    if (failing.length / samples.length < 0.5) {
      strategy.retry_policy.push({ step, max_retries: 2, backoff_ms: 1000, backoff_factor: 2 });
    }
    if (failing.every((sample) => last(sample) === "SUCCESS") && step < steps - 1) {
      strategy.fallback_steps.push({ step, behavior: "skip" });
    } else if (failing.every((sample) => last(sample) !== "SUCCESS")) {
      strategy.abort_conditions.push({ step, on: outcomes.sort() });
    }
  }
  return strategy;
}

/** Where each input of each step comes from, by the analysis. */
function stepInputs(analysis: ParameterAnalysis, steps: number): Record<string, StepInput>[] {
  const inputs: Record<string, StepInput>[] = Array.from({ length: steps }, () => ({}));
  for (const param of analysis.external) inputs[param.step][param.name] = { parameter: param.name };
  for (const wire of analysis.internal_wires) {
    inputs[wire.to_step][wire.to_key] = { wire: wire.from_step };
  }
  for (const constant of analysis.constants) {
    inputs[constant.step][constant.key] = { constant: constant.value };
  }
  for (const item of analysis.ambiguous) {
    inputs[item.step][item.key] = { parameter: `step${item.step}_${item.key}` };
  }
  return inputs;
}

/** How a tool is written beyond its samples. */
export interface SynthesisOptions {
  /** The synthesis spec's `max_parallel_steps` (default 3). */
  maxParallelSteps?: number;
  /** The tools their servers annotated read-only where the samples were recorded. */
  readOnlyTools?: ReadonlySet<string>;
}

/** The parameter analysis of the samples, with what their sessions returned before them. */
export function analyzeSamples(samples: readonly ChainSample[]): ParameterAnalysis {
  return analyzeParameters(samples.map((sample) => sample.tools), {
    earlierOutputs: samples.map((sample) => sample.earlier_outputs ?? []),
  });
}

/**
 * The offline synthesizer: the analysis made into a checked-shape `SynthesizedTool`. A
 * parameter is required exactly when every sample gave it.
 */
export function synthesizeDeterministic(
  chain: ChainInfo,
  samples: readonly ChainSample[],
  options: SynthesisOptions = {},
): SynthesizedTool {
  const analysis = analyzeSamples(samples);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const param of analysis.external) {
    properties[param.name] = {
      ...schemaOfType(param.type),
      description: `${param.name} of ${chain.tools[0]}`,
    };
    const always = samples.every((sample) => param.name in sample.tools[0].input_params);
    if (always) required.push(param.name);
  }
  for (const item of analysis.ambiguous) {
    const values = samples.map((sample) => sample.tools[item.step].input_params[item.key]);
    const name = `step${item.step}_${item.key}`;
    properties[name] = {
      ...schemaOfType(typeOf(values)),
      description: `${item.key} of ${chain.tools[item.step]} (step ${item.step})`,
    };
    if (values.every((value) => value !== undefined)) required.push(name);
  }
  const inputs = stepInputs(analysis, chain.tools.length);
  const tool: SynthesizedTool = {
    tool_id: toolIdFor(chain.tools),
    description: `Runs ${chain.tools.join(" → ")} as one call: ` +
      `${analysis.internal_wires.length} value(s) passed between the steps, ` +
      `${analysis.constants.length} fixed, the rest from the arguments.`,
    source_chain: {
      tools: [...chain.tools],
      support: chain.support,
      confidence: chain.confidence,
      avg_latency_ms: chain.avg_latency_ms,
    },
    parameters: { type: "object", properties, required, additionalProperties: false },
    steps: chain.tools.map((tool_id, index) => ({
      step_index: index,
      tool_id,
      inputs: inputs[index],
    })),
    internal_wiring: analysis.internal_wires.map((wire) => ({ ...wire })),
    error_strategy: errorStrategyFor(samples),
  };
  return withParallelism(tool, {
    maxParallel: options.maxParallelSteps ?? 3,
    readOnlyTools: options.readOnlyTools,
  });
}
