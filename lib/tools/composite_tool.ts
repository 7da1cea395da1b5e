/**
 * Composite tools (`composite.<tool_id>`): a promoted synthesized tool run as one call.
 * Its steps run through the same tool layer as any call (argument checks, the sandbox,
 * traces), in the order the wiring allows — steps marked parallel with each other run at
 * once — with each input taken from the composite's arguments, a constant, or an earlier
 * step's output, and its error strategy (retry with backoff, skip, abort) applied.
 */
import { isRecord } from "../core/mod.ts";
import type { ToolContext, ToolDescriptor } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";
import type { ToolResult } from "./types.ts";

/** Where one input of a step comes from: the composite's argument, a constant, a wire. */
export type StepInput = { parameter: string } | { constant: unknown } | { wire: number };

/** One call of a composite. */
export interface CompositeStep {
  step_index: number;
  tool_id: string;
  inputs: Record<string, StepInput>;
  parallelizable_with?: number[];
  condition?: string | null;
}

/** A value of an earlier step's output passed to a later step's input. */
export interface CompositeWire {
  from_step: number;
  from_key: string;
  to_step: number;
  to_key: string;
}

/** What a composite does when a step fails. */
export interface CompositeErrorStrategy {
  default_behavior: "abort" | "skip";
  retry_policy?: {
    step: number;
    max_retries: number;
    backoff_ms?: number;
    backoff_factor?: number;
  }[];
  fallback_steps?: { step: number; behavior: "skip" }[];
  abort_conditions?: { step: number; on: ("FAILURE" | "TIMEOUT")[] }[];
}

/** What the runner needs of a composite (a `SynthesizedTool` is one). */
export interface CompositeDefinition {
  tool_id: string;
  description: string;
  parameters: Record<string, unknown>;
  steps: CompositeStep[];
  internal_wiring: CompositeWire[];
  error_strategy: CompositeErrorStrategy;
}

/** One step's record in the composite's output. */
export interface StepReport {
  step: number;
  tool: string;
  status: "ok" | "skipped" | "failed";
  attempts: number;
  error?: string;
}

/** Backoff pauses are capped: a composite call stays within its own deadline. */
const MAX_BACKOFF_MS = 2000;

/**
 * The value an earlier output holds for a wire: the whole output as text for "(text)",
 * else the first scalar found under the key (depth first; the first item of a list).
 */
export function wiredValue(output: unknown, fromKey: string): unknown {
  if (fromKey === "(text)") return typeof output === "string" ? output : JSON.stringify(output);
  const stack: unknown[] = [output];
  for (let seen = 0; stack.length && seen < 10_000; seen++) {
    const item = stack.shift();
    if (Array.isArray(item)) stack.push(...item);
    else if (isRecord(item)) {
      if (Object.hasOwn(item, fromKey)) {
        const value = item[fromKey];
        const first = Array.isArray(value) ? value[0] : value;
        if (first !== null && typeof first !== "object") return first;
      }
      stack.push(...Object.values(item));
    } else if (typeof item === "string" && /^[[{]/.test(item.trim())) {
      try {
        stack.push(JSON.parse(item));
      } catch {
        // plain text: nothing under a key
      }
    }
  }
  return undefined;
}

/** Groups of steps that may start together, in order: a step waits for the steps it is wired from. */
export function stepWaves(definition: CompositeDefinition): number[][] {
  const done = new Set<number>();
  const waves: number[][] = [];
  const pending = definition.steps.map((step) => step.step_index);
  const sources = (index: number) =>
    definition.internal_wiring.filter((wire) => wire.to_step === index).map((wire) =>
      wire.from_step
    );
  while (pending.length) {
    const ready = pending.filter((index) => sources(index).every((source) => done.has(source)));
    if (!ready.length) throw new ToolFailure("invalid_args", "the composite's wiring has a cycle");
    // Of the ready steps, only those declared parallel with the first run beside it.
    const first = ready[0];
    const allowed = definition.steps[first].parallelizable_with ?? [];
    const wave = [first, ...ready.slice(1).filter((index) => allowed.includes(index))];
    waves.push(wave);
    for (const index of wave) {
      done.add(index);
      pending.splice(pending.indexOf(index), 1);
    }
  }
  return waves;
}

/**
 * Parses a step condition into a test over `{args, step0: {ok, output}, …}` (the
 * synthesize layer gives its safe parser; without one, conditions are refused).
 */
export type ConditionParser = (text: string) => (context: Record<string, unknown>) => boolean;

/** Checks a definition before it becomes a tool: known step tools, conditions that parse. */
export function compositeProblems(
  definition: CompositeDefinition,
  known: (tool: string) => boolean,
  parseCondition?: ConditionParser,
): string[] {
  const problems: string[] = [];
  for (const step of definition.steps) {
    if (!known(step.tool_id)) {
      problems.push(`step ${step.step_index}: ${step.tool_id} is not a tool here`);
    }
    if (!step.condition) continue;
    if (!parseCondition) {
      problems.push(`step ${step.step_index}: conditions need a condition parser`);
      continue;
    }
    try {
      parseCondition(step.condition);
    } catch (error) {
      problems.push(`step ${step.step_index}: ${(error as Error).message}`);
    }
  }
  try {
    stepWaves(definition);
  } catch (error) {
    problems.push((error as Error).message);
  }
  return problems;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The descriptor of a composite tool; its steps are called through `context.callTool`. A
 * step with a condition runs only when it holds over the arguments and the earlier steps.
 */
export function compositeToolDescriptor(
  definition: CompositeDefinition,
  parseCondition?: ConditionParser,
): ToolDescriptor {
  const conditions = new Map<number, (context: Record<string, unknown>) => boolean>();
  for (const step of definition.steps) {
    if (!step.condition) continue;
    if (!parseCondition) {
      throw new ToolFailure(
        "invalid_args",
        `step ${step.step_index} has a condition and no parser`,
      );
    }
    conditions.set(step.step_index, parseCondition(step.condition));
  }
  const strategy = definition.error_strategy;
  const retriesOf = (step: number) =>
    strategy.retry_policy?.find((rule) => rule.step === step) ??
      { step, max_retries: 0, backoff_ms: 0, backoff_factor: 1 };
  const skips = (step: number) =>
    (strategy.fallback_steps ?? []).some((rule) => rule.step === step) ||
    (strategy.default_behavior === "skip" &&
      !(strategy.abort_conditions ?? []).some((rule) => rule.step === step));
  return {
    name: `composite.${definition.tool_id}`,
    description: definition.description,
    argsSchema: definition.parameters,
    async run(args, context: ToolContext) {
      const callTool = context.callTool;
      if (!callTool) {
        throw new ToolFailure("sandbox_unavailable", "composite tools run inside a tool session");
      }
      const outputs = new Map<number, unknown>();
      const reports: StepReport[] = [];
      const runStep = async (index: number) => {
        const step = definition.steps[index];
        const condition = conditions.get(index);
        if (condition) {
          const view: Record<string, unknown> = { args };
          for (const [at, output] of outputs) view[`step${at}`] = { ok: true, output };
          if (!condition(view)) {
            reports[index] = {
              step: index,
              tool: step.tool_id,
              status: "skipped",
              attempts: 0,
              error: "condition is false",
            };
            return;
          }
        }
        const inputs: Record<string, unknown> = {};
        for (const [key, source] of Object.entries(step.inputs)) {
          if ("parameter" in source) {
            if (args[source.parameter] !== undefined) inputs[key] = args[source.parameter];
          } else if ("constant" in source) inputs[key] = source.constant;
          else {
            const wire = definition.internal_wiring.find((w) =>
              w.to_step === index && w.to_key === key
            );
            if (!wire || !outputs.has(wire.from_step)) {
              reports[index] = {
                step: index,
                tool: step.tool_id,
                status: "skipped",
                attempts: 0,
                error: `no output from step ${source.wire}`,
              };
              return;
            }
            inputs[key] = wiredValue(outputs.get(wire.from_step), wire.from_key);
          }
        }
        const policy = retriesOf(index);
        let result: ToolResult | undefined;
        let attempts = 0;
        for (; attempts <= policy.max_retries; attempts++) {
          if (attempts > 0) {
            const pause = (policy.backoff_ms ?? 0) * (policy.backoff_factor ?? 1) ** (attempts - 1);
            await sleep(Math.min(MAX_BACKOFF_MS, pause));
          }
          result = await callTool(step.tool_id, inputs);
          if (result.ok) break;
        }
        if (result?.ok) {
          outputs.set(index, result.output);
          reports[index] = {
            step: index,
            tool: step.tool_id,
            status: "ok",
            attempts: attempts + 1,
          };
          return;
        }
        const error = result?.error ? `${result.error.code}: ${result.error.message}` : "failed";
        if (skips(index)) {
          reports[index] = { step: index, tool: step.tool_id, status: "skipped", attempts, error };
          return;
        }
        reports[index] = { step: index, tool: step.tool_id, status: "failed", attempts, error };
        throw new ToolFailure(
          result?.error?.code === "timeout" ? "timeout" : "io_error",
          `step ${index} (${step.tool_id}) failed after ${attempts} attempt(s): ${error}`,
        );
      };
      for (const wave of stepWaves(definition)) await Promise.all(wave.map(runStep));
      const last = definition.steps.length - 1;
      return { output: outputs.get(last) ?? null, steps: reports };
    },
  };
}
