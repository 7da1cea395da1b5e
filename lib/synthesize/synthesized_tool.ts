/**
 * The `SynthesizedTool` (`schemas/records/synthesized-tool.schema.json`): a composite that
 * replaces a mined chain, and the synthesis spec's checks every synthesized tool passes
 * before it is stored, whoever wrote it (the offline synthesizer or a model).
 */
import { isSecretName, sha256Hex, SynError } from "../core/mod.ts";
import { returnedBy } from "./analyze_parameters.ts";
import {
  compileJsonSchema,
  type JsonSchemaValidator,
  type ValidationIssue,
} from "../schema/mod.ts";
import synthesizedToolSchema from "../../schemas/records/synthesized-tool.schema.json" with {
  type: "json",
};
import {
  type CompositeErrorStrategy,
  compositeProblems,
  type CompositeStep,
  type CompositeWire,
  MAX_PARALLEL_STEPS,
  type StepInput as ToolsStepInput,
} from "../tools/mod.ts";
import { StepGraph } from "./step_graph.ts";
import { jsonDepth } from "./_json_depth.ts";

/** The step, wire and error-strategy shapes are the composite runner's (`lib/tools`). */
export type StepInput = ToolsStepInput;
export type SynthesizedStep = CompositeStep;
export type Wire = CompositeWire;
export type ErrorStrategy = CompositeErrorStrategy;

export interface SynthesizedTool {
  tool_id: string;
  description: string;
  source_chain: { tools: string[]; support?: number; confidence?: number; avg_latency_ms?: number };
  parameters: Record<string, unknown>;
  steps: SynthesizedStep[];
  internal_wiring: Wire[];
  error_strategy: ErrorStrategy;
  /** Most steps running at once; the composite plan enforces it (default 3). */
  max_parallel_steps?: number;
}

/** Deepest nesting accepted in a tool's `parameters` schema (walks over it stay shallow). */
export const MAX_PARAMETERS_DEPTH = 32;

let validator: Promise<JsonSchemaValidator> | undefined;

/** The schema as a model is asked to answer it (structured output). */
export const SYNTHESIZED_TOOL_SCHEMA = synthesizedToolSchema as Record<string, unknown>;

/** Longest tool id (the registry's file names and the schema allow no more). */
const MAX_TOOL_ID_CHARS = 96;

/**
 * A tool id from tool names: lower case, `-then-` between the tools, at most 96 chars. A
 * longer slug is cut and ends in 8 hex digits of the whole chain's hash, so two long chains
 * that share their first tools never get the same id (and overwrite each other's file).
 */
export function toolIdFor(tools: readonly string[]): string {
  const slug = tools.map((tool) => tool.toLowerCase().replace(/[^a-z0-9_.]+/g, "_"))
    .join("-then-").replace(/^[^a-z0-9]+/, "") || "composite";
  if (slug.length <= MAX_TOOL_ID_CHARS) return slug.replace(/[-_.]+$/, "") || "composite";
  const suffix = sha256Hex(JSON.stringify(tools)).slice(0, 8);
  const cut = slug.slice(0, MAX_TOOL_ID_CHARS - suffix.length - 1).replace(/[-_.]+$/, "");
  return `${cut}-${suffix}`;
}

/** Where a value departs from the `SynthesizedTool` schema (none: it has the shape). */
export async function synthesizedToolShape(value: unknown): Promise<ValidationIssue[]> {
  validator ??= compileJsonSchema(SYNTHESIZED_TOOL_SCHEMA, { lookFirstIn: "records" });
  return (await validator)(value).errors;
}

/**
 * The spec's checks, in order, as messages (empty: the tool passes):
 * 1. it is a `SynthesizedTool` (the schema);
 * 2. `parameters` is a JSON Schema draft 2020-12 that compiles;
 * 3. every step's `tool_id` is a known tool (the chain's, in the chain's order);
 * 4. every wire names valid step indices (an earlier step feeding a later one) and every
 *    `{wire: i}` input has its wire;
 * 5. `parallelizable_with` indices are in bounds, not the step itself, never a step
 *    the other depends on (no cycle through the wiring), and symmetric (a step lists
 *    every step that lists it: the runtime and validation read one relation);
 * and the composite plan's own refusals (no composite as a step, conditions that parse,
 * argument patterns that cannot stall the validator).
 */
export async function checkSynthesizedTool(
  value: unknown,
  chain: readonly string[],
): Promise<string[]> {
  const shape = await synthesizedToolShape(value);
  if (shape.length) return shape.map((issue) => `${issue.path || "/"}: ${issue.msg}`);
  const tool = value as SynthesizedTool;
  const problems: string[] = [];
  if (jsonDepth(tool.parameters, MAX_PARAMETERS_DEPTH) > MAX_PARAMETERS_DEPTH) {
    return [`/parameters: nested deeper than ${MAX_PARAMETERS_DEPTH} levels`];
  }
  try {
    await compileJsonSchema(tool.parameters);
    if (tool.parameters.type !== "object") problems.push("/parameters: must describe an object");
  } catch (error) {
    problems.push(`/parameters: not a valid JSON Schema: ${(error as Error).message}`);
  }
  const count = tool.steps.length;
  tool.steps.forEach((step, index) => {
    if (step.step_index !== index) problems.push(`/steps/${index}/step_index: must be ${index}`);
    if (step.tool_id !== chain[index]) {
      problems.push(`/steps/${index}/tool_id: ${step.tool_id} is not step ${index} of the chain`);
    }
  });
  if (count !== chain.length) {
    problems.push(`/steps: ${count} steps for a chain of ${chain.length}`);
  }
  tool.internal_wiring.forEach((wire, index) => {
    if (!(wire.from_step < wire.to_step && wire.to_step < count)) {
      problems.push(`/internal_wiring/${index}: must join an earlier step to a later one`);
    }
  });
  tool.steps.forEach((step, index) => {
    for (const [key, input] of Object.entries(step.inputs)) {
      if (!("wire" in input)) continue;
      const wired = tool.internal_wiring.some((wire) =>
        wire.to_step === index && wire.to_key === key && wire.from_step === input.wire
      );
      if (!wired) problems.push(`/steps/${index}/inputs/${key}: no wire from step ${input.wire}`);
    }
  });
  if (problems.length) return problems;
  const graph = stepGraphOf(tool);
  tool.steps.forEach((step, index) => {
    for (const other of step.parallelizable_with ?? []) {
      if (other >= count || other === index) {
        problems.push(`/steps/${index}/parallelizable_with: ${other} is not another step`);
      } else if (!graph.canRunTogether(String(index), String(other))) {
        problems.push(
          `/steps/${index}/parallelizable_with: ${other} depends on it or it on ${other}`,
        );
      }
    }
  });
  if (problems.length) return problems;
  problems.push(...secretConstantProblems(tool));
  if (problems.length) return problems;
  return compositeProblems(tool, () => true);
}

/** A secret-named input is always a parameter: a constant there is refused, wherever it came from. */
export function secretConstantProblems(tool: Pick<SynthesizedTool, "steps">): string[] {
  return tool.steps.flatMap((step, index) =>
    Object.entries(step.inputs).filter(([key, input]) => "constant" in input && isSecretName(key))
      .map(([key]) =>
        `/steps/${index}/inputs/${key}: a secret-named input must be a parameter, never a constant`
      )
  );
}

/**
 * Constants that a sample's session returned before the step (then the value is the
 * session's — a wire or a parameter — not the task's): a model's answer is held to the same
 * rule as the offline synthesizer's.
 */
export function sessionConstantProblems(
  tool: Pick<SynthesizedTool, "steps">,
  samples: readonly {
    earlier_outputs?: readonly (string | null)[];
    tools: readonly { output_summary: string | null }[];
  }[],
): string[] {
  return tool.steps.flatMap((step, index) =>
    Object.entries(step.inputs).filter(([, input]) =>
      "constant" in input && samples.some((sample) =>
        [
          ...(sample.earlier_outputs ?? []),
          ...sample.tools.slice(0, index).map((call) => call.output_summary),
        ].some((output) => returnedBy(output, (input as { constant: unknown }).constant))
      )
    ).map(([key]) =>
      `/steps/${index}/inputs/${key}: an earlier call of the session returned this value: wire it or make it a parameter`
    )
  );
}

/** The steps as a DAG: each depends on the steps it takes wired values from. */
export function stepGraphOf(tool: Pick<SynthesizedTool, "steps" | "internal_wiring">): StepGraph {
  return new StepGraph(tool.steps.map((_, index) => ({
    id: String(index),
    depends_on: tool.internal_wiring.filter((wire) => wire.to_step === index)
      .map((wire) => String(wire.from_step)),
  })));
}

/** Raised when no valid tool could be written (after the one error-correction retry). */
export class SynthesisError extends SynError {
  constructor(message: string, problems: readonly string[]) {
    super("synthesis_error", message, { problems: [...problems] });
  }
}

/**
 * The spec's "step construction", order-safe: each step is marked `read_only` exactly when
 * its tool is in `readOnlyTools` (the servers' annotations where the samples were recorded
 * — never what a model wrote), and may run with another step only when both are read-only
 * and share no data dependency (a symmetric relation, recomputed from the wiring). The cap
 * on steps running at once is recorded as `max_parallel_steps`, which the composite plan
 * enforces exactly; the plan also keeps every step in recorded order and asks the runner
 * again whether each overlapping step is still read-only.
 */
export function withParallelism(
  tool: SynthesizedTool,
  options: { maxParallel: number; readOnlyTools?: ReadonlySet<string> },
): SynthesizedTool {
  const { maxParallel, readOnlyTools = new Set<string>() } = options;
  const graph = stepGraphOf(tool);
  const cap = Math.min(MAX_PARALLEL_STEPS, Math.max(1, Math.floor(maxParallel)));
  const readOnly = tool.steps.map((step) => readOnlyTools.has(step.tool_id));
  const steps = tool.steps.map((step, index) => {
    const { read_only: _claimed, ...rest } = step;
    return {
      ...rest,
      ...(readOnly[index] ? { read_only: true } : {}),
      parallelizable_with: cap < 2 || !readOnly[index] ? [] : tool.steps.map((_, other) => other)
        .filter((other) => readOnly[other] && graph.canRunTogether(String(index), String(other))),
    };
  });
  return { ...tool, steps, max_parallel_steps: cap };
}
