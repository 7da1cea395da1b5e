/**
 * The one meaning of a composite tool, shared by the runtime (`runComposite`), the proxy
 * and validation: which steps start together, what a step's failure leads to (retry with
 * backoff, skip, abort), and how long the whole takes given each step's duration. The plan
 * says nothing about how a step is executed, so the same plan runs steps in syn's sandbox or
 * on another MCP server.
 *
 * Steps run in recorded order. Hidden state orders writes even where no value passes
 * between them (`lockDoors → pressBrakePedal → startEngine`: the engine refuses to start
 * unless the doors are locked and the brake pressed), so steps start together only when
 * every one of them is read-only — marked so at synthesis and confirmed by whoever runs the
 * composite — and no value is wired between them. A step that may write never overlaps any
 * other step.
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
  /**
   * The step's tool was annotated read-only (`readOnlyHint: true`) by its server when the
   * composite was synthesized. Only read-only steps may overlap; the runner asks again.
   */
  read_only?: boolean;
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
function mayRunTogether(definition: CompositeDefinition, a: number, b: number): boolean {
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

/** How the runner confirms, as it runs, that step `index` is still read-only. */
export interface WaveOptions {
  /** Default: the step's `read_only` mark alone. */
  readOnly?: (index: number) => boolean;
}

/** Whether step `index` is read-only: marked at synthesis and confirmed by the runner. */
function readOnlyStep(
  definition: CompositeDefinition,
  index: number,
  options: WaveOptions,
): boolean {
  return definition.steps[index]?.read_only === true && (options.readOnly?.(index) ?? true);
}

/**
 * Groups of steps that start together, in recorded order: each wave is a run of
 * consecutive steps. A step joins the current wave only when it and every step already in
 * the wave are read-only, each may run together with it (`parallelizable_with`, both ways),
 * none of them feeds it a value, and the wave is below the cap; otherwise it starts the
 * next wave. A wave ends when its slowest step does. Throws `RangeError` when a step is
 * wired from itself or a later step.
 */
export function compositeWaves(
  definition: CompositeDefinition,
  options: WaveOptions = {},
): number[][] {
  const cap = concurrencyCap(definition);
  const waves: number[][] = [];
  let wave: number[] = [];
  definition.steps.forEach((_, index) => {
    const sources = stepSources(definition, index);
    if (sources.some((source) => source >= index)) {
      throw new RangeError("the composite's wiring has a cycle or runs backwards");
    }
    const joins = wave.length > 0 && wave.length < cap &&
      readOnlyStep(definition, index, options) &&
      wave.every((taken) =>
        readOnlyStep(definition, taken, options) && mayRunTogether(definition, taken, index) &&
        !sources.includes(taken)
      );
    if (!joins && wave.length) {
      waves.push(wave);
      wave = [];
    }
    wave.push(index);
  });
  if (wave.length) waves.push(wave);
  return waves;
}

/** How long the composite takes when step `i` takes `durations[i]` ms: each wave its slowest. */
export function planLatency(
  definition: CompositeDefinition,
  durations: readonly number[],
  options: WaveOptions = {},
): number {
  return compositeWaves(definition, options).reduce(
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

/** Whether the strategy says something specific about a step's failure (error parity). */
export function strategyHandles(
  strategy: CompositeErrorStrategy,
  failure: { step: number; outcome: string },
): boolean {
  const { step, outcome } = failure;
  return retryRuleOf(strategy, step).maxRetries > 0 ||
    (strategy.fallback_steps ?? []).some((rule) => rule.step === step) ||
    (strategy.abort_conditions ?? []).some((rule) =>
      rule.step === step && (rule.on as string[]).includes(outcome)
    );
}
