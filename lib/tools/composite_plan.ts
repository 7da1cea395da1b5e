/**
 * The one meaning of a composite tool, shared by the runtime (`runComposite`) and by
 * replay validation: which steps start together (waves, at most `max_parallel_steps` at
 * once), what a step's failure leads to (retry with backoff, skip, abort), and how long the
 * whole takes given each step's duration. The plan says nothing about how a step is
 * executed, so the same plan runs steps in syn's sandbox or on another MCP server.
 */
import { backoffDelay, type BackoffOptions } from "../core/mod.ts";

/** Where one input of a step comes from: the composite's argument, a constant, a wire. */
export type StepInput = { parameter: string } | { constant: unknown } | { wire: number };

/** One call of a composite. */
export interface CompositeStep {
  step_index: number;
  tool_id: string;
  inputs: Record<string, StepInput>;
  /** Steps that may run at the same time as this one; the relation must be symmetric. */
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

/** What the plan needs of a composite (a `SynthesizedTool` is one). */
export interface CompositeDefinition {
  tool_id: string;
  description: string;
  parameters: Record<string, unknown>;
  steps: CompositeStep[];
  internal_wiring: CompositeWire[];
  error_strategy: CompositeErrorStrategy;
  /** Most steps running at once (the synthesis spec's `max_parallel_steps`, default 3). */
  max_parallel_steps?: number;
}

/** The synthesis spec's default cap on concurrent steps. */
export const DEFAULT_MAX_PARALLEL_STEPS = 3;
/** Bounds the runtime holds whatever a definition says (the schema says the same). */
export const MAX_PARALLEL_STEPS = 16;
export const MAX_STEP_RETRIES = 10;
/** Backoff pauses are capped: a composite call stays within its own deadline. */
export const MAX_BACKOFF_MS = 2000;

/** The steps whose outputs step `index` is wired from. */
export function stepSources(definition: CompositeDefinition, index: number): number[] {
  return definition.internal_wiring.filter((wire) => wire.to_step === index)
    .map((wire) => wire.from_step);
}

/** Two steps may run together only when each lists the other. */
export function mayRunTogether(definition: CompositeDefinition, a: number, b: number): boolean {
  const listed = (from: number, to: number) =>
    definition.steps[from]?.parallelizable_with?.includes(to) ?? false;
  return a !== b && listed(a, b) && listed(b, a);
}

/** Every `parallelizable_with` entry not answered by the other step, as messages. */
export function parallelAsymmetries(definition: CompositeDefinition): string[] {
  const problems: string[] = [];
  definition.steps.forEach((step, index) => {
    for (const other of step.parallelizable_with ?? []) {
      if (definition.steps[other]?.parallelizable_with?.includes(index)) continue;
      problems.push(
        `/steps/${index}/parallelizable_with: lists ${other}, but step ${other} does not list ${index} (the relation must be symmetric)`,
      );
    }
  });
  return problems;
}

/** The cap on steps running at once: `max_parallel_steps`, within 1…16. */
export function concurrencyCap(definition: CompositeDefinition): number {
  const wanted = Math.floor(definition.max_parallel_steps ?? DEFAULT_MAX_PARALLEL_STEPS);
  return Math.min(MAX_PARALLEL_STEPS, Math.max(1, Number.isFinite(wanted) ? wanted : 1));
}

/**
 * Groups of steps that start together, in order. A step is ready when every step it is
 * wired from has finished; of the ready steps (by index) a wave takes each one that may
 * run together with all already taken, up to the cap. A wave ends when its slowest step
 * does. Throws `RangeError` when the wiring has a cycle.
 */
export function compositeWaves(definition: CompositeDefinition): number[][] {
  const cap = concurrencyCap(definition);
  const done = new Set<number>();
  const pending = definition.steps.map((_, index) => index);
  const waves: number[][] = [];
  while (pending.length) {
    const ready = pending.filter((index) =>
      stepSources(definition, index).every((source) => done.has(source))
    );
    if (!ready.length) throw new RangeError("the composite's wiring has a cycle");
    const wave: number[] = [];
    for (const index of ready) {
      if (wave.length >= cap) break;
      if (wave.every((taken) => mayRunTogether(definition, taken, index))) wave.push(index);
    }
    waves.push(wave);
    for (const index of wave) {
      done.add(index);
      pending.splice(pending.indexOf(index), 1);
    }
  }
  return waves;
}

/** How long the composite takes when step `i` takes `durations[i]` ms: each wave its slowest. */
export function planLatency(definition: CompositeDefinition, durations: readonly number[]): number {
  return compositeWaves(definition).reduce(
    (total, wave) => total + Math.max(...wave.map((index) => durations[index] ?? 0)),
    0,
  );
}

/** How often a step is retried and the pauses between tries. */
export interface RetryRule {
  maxRetries: number;
  backoff: BackoffOptions;
}

/** The retry rule of a step: none unless the strategy names it; bounded either way. */
export function retryRuleOf(strategy: CompositeErrorStrategy, step: number): RetryRule {
  const rule = strategy.retry_policy?.find((item) => item.step === step);
  const bounded = (value: number | undefined, low: number, high: number, fallback: number) =>
    Number.isFinite(value) ? Math.min(high, Math.max(low, value!)) : fallback;
  return {
    maxRetries: Math.floor(bounded(rule?.max_retries, 0, MAX_STEP_RETRIES, 0)),
    backoff: {
      baseMs: bounded(rule?.backoff_ms, 0, MAX_BACKOFF_MS, 0),
      factor: bounded(rule?.backoff_factor, 1, 10, 1),
      capMs: MAX_BACKOFF_MS,
      jitter: 0,
    },
  };
}

/** The pause before retry number `retry` (0-based) of a rule. */
export function retryPause(rule: RetryRule, retry: number): number {
  return backoffDelay(retry, rule.backoff);
}

/**
 * Whether a failed step (after its retries) is skipped rather than aborting the composite:
 * a fallback names it, or the default is `skip` and no abort condition names it.
 */
export function skipsOnFailure(strategy: CompositeErrorStrategy, step: number): boolean {
  return (strategy.fallback_steps ?? []).some((rule) => rule.step === step) ||
    (strategy.default_behavior === "skip" &&
      !(strategy.abort_conditions ?? []).some((rule) => rule.step === step));
}

/** Whether the strategy says something specific about `outcome` at `step` (error parity). */
export function strategyHandles(
  strategy: CompositeErrorStrategy,
  step: number,
  outcome: string,
): boolean {
  return retryRuleOf(strategy, step).maxRetries > 0 ||
    (strategy.fallback_steps ?? []).some((rule) => rule.step === step) ||
    (strategy.abort_conditions ?? []).some((rule) =>
      rule.step === step && (rule.on as string[]).includes(outcome)
    );
}
