/**
 * The synthesis spec's validation pipeline, offline: the sessions that contain the chain
 * (newest first), the inputs the composite would have received, the wiring checked
 * against recorded values, the final output projected through the steps and scored
 * against the recorded one, latency with parallel savings, and error parity.
 */
import { SynError } from "../core/mod.ts";
import { keysHolding } from "./analyze_parameters.ts";
import { cosineTfidf } from "./cosine_tfidf.ts";
import { withinDepth } from "./_json_depth.ts";
import type { EventStore, SessionRange } from "./event_store.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";
import type { StoredToolEvent, ToolOutcome } from "./tool_event.ts";
import { planLatency, strategyHandles } from "../tools/mod.ts";
import {
  type ExecutionScore,
  type ExecutionTarget,
  validateByExecution,
} from "./execution_validation.ts";
import {
  type FreshExecutionScore,
  type FreshSession,
  type FreshWorlds,
  validateInFreshWorlds,
} from "./fresh_execution.ts";

/** The `validation` keys of the configuration, with the spec's defaults. */
export interface ValidationConfig {
  min_replay_sessions: number;
  equivalence_threshold: number;
  max_latency_regression: number;
  similarity_method: "cosine_tfidf" | "exact_match";
}

export const DEFAULT_VALIDATION_CONFIG: ValidationConfig = {
  min_replay_sessions: 10,
  equivalence_threshold: 0.95,
  max_latency_regression: 1.2,
  similarity_method: "cosine_tfidf",
};

/** One session as replay sees it (the spec's `ReplaySession`, plus per-step detail). */
export interface ReplaySession {
  session_id: string;
  external_inputs: Record<string, unknown>;
  step_outputs: (string | null)[];
  final_output: string | null;
  total_latency_ms: number;
  outcome: ToolOutcome;
  events: StoredToolEvent[];
}

/**
 * What the equivalence score rests on. `replay`: recorded values only — where every step
 * would be called as recorded, the projected output is the recorded one by construction,
 * so the score says whether the calls reproduce, not whether the outputs would.
 * `execution`: the composite was also executed — in fresh worlds beside the original calls
 * (`execution.mode: "fresh"`, the only way a chain that writes is executed), or, for a chain
 * whose every step its server annotates read-only, against the live server — and its
 * outputs scored. Promotion needs `execution` unless replay alone is accepted by name.
 */
export type ValidationEvidence = "replay" | "execution";

export interface ValidationResult {
  tool_id: string;
  passed: boolean;
  evidence: ValidationEvidence;
  reasons: string[];
  sessions: string[];
  equivalence: {
    mean_similarity: number;
    min_similarity: number;
    method: ValidationConfig["similarity_method"];
    threshold: number;
  };
  wiring: { checked: number; held: number };
  /**
   * `recorded` is false when every replayed step has latency 0 (the public corpora record
   * none): then nothing was compared and the ratio is 1.
   */
  latency: {
    composite_ms: number;
    original_ms: number;
    ratio: number;
    max: number;
    recorded: boolean;
  };
  error_parity: boolean;
  unhandled_failures: { session_id: string; step: number; outcome: ToolOutcome }[];
  /**
   * With execution: the composite run on the recorded inputs — against a live server
   * (`ExecutionScore`) or in fresh worlds (`FreshExecutionScore`, `mode: "fresh"`).
   */
  execution?: ExecutionScore | FreshExecutionScore;
  validated_at: string;
}

/** Fewer sessions contain the chain than `min_replay_sessions` asks for. */
export class InsufficientDataError extends SynError {
  constructor(found: number, needed: number) {
    super(
      "insufficient_data",
      `only ${found} session(s) contain the chain; validation needs ${needed} (min_replay_sessions)`,
      { found, needed },
    );
  }
}

/** Indices of `chain` in `sequence`: a contiguous run if there is one, else the first subsequence. */
export function matchChain(
  chain: readonly string[],
  sequence: readonly string[],
): number[] | undefined {
  for (let start = 0; start + chain.length <= sequence.length; start++) {
    if (chain.every((tool, offset) => sequence[start + offset] === tool)) {
      return chain.map((_, offset) => start + offset);
    }
  }
  const found: number[] = [];
  for (let index = 0; index < sequence.length && found.length < chain.length; index++) {
    if (sequence[index] === chain[found.length]) found.push(index);
  }
  return found.length === chain.length ? found : undefined;
}

/**
 * The spec's session selection: every session holding the chain, newest first, the first
 * `count` — of those `replayable` accepts, when given.
 */
export async function selectSessions(
  store: EventStore,
  chain: readonly string[],
  options: {
    count: number;
    range?: SessionRange;
    replayable?: (events: StoredToolEvent[]) => boolean;
  },
): Promise<ReplaySession[]> {
  const { count } = options;
  const found: ReplaySession[] = [];
  const sessions = (await store.getSessions(options.range)).reverse();
  for (const summary of sessions) {
    if (found.length >= count) break;
    const all = await store.getBySession(summary.session_id);
    const indices = matchChain(chain, all.map((event) => event.tool_id));
    if (!indices) continue;
    const events = indices.map((index) => all[index]);
    if (options.replayable && !options.replayable(events)) continue;
    found.push({
      session_id: summary.session_id,
      external_inputs: { ...events[0].input_params },
      step_outputs: events.map((event) => event.output_summary),
      final_output: events[events.length - 1].output_summary,
      total_latency_ms: events.reduce((sum, event) => sum + event.latency_ms, 0),
      outcome: events[events.length - 1].outcome,
      events,
    });
  }
  return found;
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Whether a recorded value reached `to` from the output of `from` as the wire says. */
function wireHolds(output: string | null, fromKey: string, value: unknown): boolean {
  if (output === null || value === undefined || value === null) return false;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (fromKey === "(text)") return output.includes(text);
  return keysHolding(output, text).includes(fromKey);
}

/**
 * The spec's offline output comparison for one session: each step's inputs projected from
 * the composite's arguments (taken from the recorded calls), constants and wires over the
 * recorded outputs. Where every step would have been called exactly as recorded, the
 * projected final output is the recorded one; otherwise there is none (null).
 */
export function projectSession(tool: SynthesizedTool, session: ReplaySession) {
  let held = 0;
  let exact = true;
  tool.steps.forEach((step, index) => {
    const recorded = session.events[index].input_params;
    const keys = new Set([...Object.keys(recorded), ...Object.keys(step.inputs)]);
    for (const key of keys) {
      const input = step.inputs[key];
      if (!input) {
        exact = false;
        continue;
      }
      if ("constant" in input) exact &&= same(input.constant, recorded[key]);
      else if ("parameter" in input) exact &&= key in recorded;
      else {
        const wire = tool.internal_wiring.find((w) => w.to_step === index && w.to_key === key);
        const ok = wire !== undefined &&
          wireHolds(session.step_outputs[wire.from_step], wire.from_key, recorded[key]);
        if (ok) held++;
        exact &&= ok;
      }
    }
  });
  return { projected: exact ? session.final_output : null, wiresHeld: held, exact };
}

/** Similarity of one session's projection: 0 when the steps would not run as recorded. */
function sessionScore(
  projection: { projected: string | null; exact: boolean },
  recorded: string | null,
  method: ValidationConfig["similarity_method"],
): number {
  if (!projection.exact) return 0;
  if (projection.projected === null && recorded === null) return 1;
  return similarity(projection.projected, recorded, { method });
}

/** Similarity of a projected and a recorded output by the configured method. */
export function similarity(
  projected: string | null,
  recorded: string | null,
  options: { method?: ValidationConfig["similarity_method"] } = {},
): number {
  const method = options.method ?? DEFAULT_VALIDATION_CONFIG.similarity_method;
  if (projected === null) return 0;
  if (method === "exact_match") return projected === recorded ? 1 : 0;
  return cosineTfidf(projected, recorded ?? "");
}

/**
 * The composite's latency from recorded step latencies: the composite plan's model (each
 * wave takes its slowest step), the same schedule the runtime follows.
 */
export function compositeLatency(tool: SynthesizedTool, latencies: readonly number[]): number {
  return planLatency(tool, latencies);
}

/** Failures of the sessions that no step-specific strategy of the tool handles. */
export function unhandledFailures(tool: SynthesizedTool, sessions: readonly ReplaySession[]) {
  return sessions.flatMap((session) =>
    session.events.flatMap((event, step) =>
      event.outcome !== "SUCCESS" &&
        !strategyHandles(tool.error_strategy, { step, outcome: event.outcome })
        ? [{ session_id: session.session_id, step, outcome: event.outcome }]
        : []
    )
  );
}

/** How a validation executes the composite besides replaying it (default: it does not). */
export interface ValidationOptions {
  /** The thresholds and similarity method; default `DEFAULT_VALIDATION_CONFIG`. */
  config?: ValidationConfig;
  /** Dates the result; default `Date.now`. */
  now?: () => number;
  /** Executes against a live server (read-only chains only) or a single sandbox. */
  target?: ExecutionTarget;
  /** Executes in fresh worlds, one pair per session (`fresh_execution.ts`). */
  fresh?: { worlds: FreshWorlds; jobs?: number; sessionDeadlineMs?: number };
}

/** The sessions as fresh execution needs them: every call, the chain where it ran. */
async function freshSessions(
  store: EventStore,
  sessions: readonly ReplaySession[],
): Promise<{ usable: FreshSession[]; skipped: string[] }> {
  const usable: FreshSession[] = [];
  const skipped: string[] = [];
  for (const session of sessions) {
    const calls = await store.getBySession(session.session_id);
    const start = calls.findIndex((call) => call.event_id === session.events[0].event_id);
    const contiguous = start >= 0 &&
      session.events.every((event, offset) => calls[start + offset]?.event_id === event.event_id);
    if (contiguous) usable.push({ session_id: session.session_id, calls, chain_start: start });
    else skipped.push(session.session_id);
  }
  return { usable, skipped };
}

/** Executes the composite as the options say; none when they name no execution. */
async function executeFor(
  store: EventStore,
  tool: SynthesizedTool,
  sessions: readonly ReplaySession[],
  config: ValidationConfig,
  options: ValidationOptions,
): Promise<ExecutionScore | FreshExecutionScore | undefined> {
  const score = (left: string, right: string | null) =>
    similarity(left, right, { method: config.similarity_method });
  if (options.fresh) {
    const { usable } = await freshSessions(store, sessions);
    return await validateInFreshWorlds(tool, usable, {
      worlds: options.fresh.worlds,
      score,
      jobs: options.fresh.jobs,
      sessionDeadlineMs: options.fresh.sessionDeadlineMs,
    });
  }
  if (options.target) {
    return await validateByExecution(tool, sessions, { target: options.target, score });
  }
  return undefined;
}

/** Why an execution does not pass (empty: it does). */
function executionReasons(
  execution: ExecutionScore | FreshExecutionScore | undefined,
  config: ValidationConfig,
): string[] {
  if (!execution) return [];
  const reasons: string[] = [];
  if (execution.sessions === 0) reasons.push("executed: no session could be executed");
  if (execution.mean_similarity < config.equivalence_threshold) {
    reasons.push(
      `executed: mean similarity ${
        execution.mean_similarity.toFixed(3)
      } is below ${config.equivalence_threshold}`,
    );
  }
  if ("mode" in execution) {
    if (execution.failures.length) {
      reasons.push(`executed: ${execution.failures.length} session(s) failed to run`);
    }
    if (config.similarity_method === "exact_match") {
      const unequal = execution.steps.compared - execution.steps.equal +
        execution.later.compared - execution.later.equal;
      if (unequal) reasons.push(`executed: ${unequal} output(s) differ from the original calls'`);
    }
  }
  return reasons;
}

/**
 * Validates a tool by replaying the newest `min_replay_sessions` sessions that contain its
 * chain, and — when the options name an execution — by executing it too (then the execution
 * must pass as well). Throws `InsufficientDataError` when there are fewer sessions.
 */
export async function validateByReplay(
  store: EventStore,
  tool: SynthesizedTool,
  options: ValidationOptions = {},
): Promise<ValidationResult> {
  const config = options.config ?? DEFAULT_VALIDATION_CONFIG;
  const now = options.now ?? Date.now;
  const chain = tool.source_chain.tools;
  // A session whose wired values' sources were not recorded cannot be replayed offline.
  // Nor can one whose inputs nest too deeply to compare.
  const replayable = (events: StoredToolEvent[]) =>
    tool.internal_wiring.every((wire) => (events[wire.from_step].output_summary ?? "") !== "") &&
    events.every((event) => withinDepth(event.input_params));
  const sessions = await selectSessions(store, chain, {
    count: config.min_replay_sessions,
    replayable,
  });
  if (sessions.length < config.min_replay_sessions) {
    throw new InsufficientDataError(sessions.length, config.min_replay_sessions);
  }
  const scores: number[] = [];
  let held = 0;
  let composite = 0;
  let original = 0;
  let recorded = false;
  for (const session of sessions) {
    const projection = projectSession(tool, session);
    scores.push(sessionScore(projection, session.final_output, config.similarity_method));
    held += projection.wiresHeld;
    composite += compositeLatency(tool, session.events.map((event) => event.latency_ms));
    original += session.total_latency_ms;
    recorded ||= session.events.some((event) => event.latency_ms > 0);
  }
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  const ratio = original === 0 ? 1 : composite / original;
  const unhandled = unhandledFailures(tool, sessions);
  const execution = await executeFor(store, tool, sessions, config, options);
  const reasons = [
    ...(mean < config.equivalence_threshold
      ? [`mean similarity ${mean.toFixed(3)} is below ${config.equivalence_threshold}`]
      : []),
    ...(ratio > config.max_latency_regression
      ? [`latency ratio ${ratio.toFixed(3)} is above ${config.max_latency_regression}`]
      : []),
    ...(unhandled.length ? [`${unhandled.length} observed failure(s) have no strategy`] : []),
    ...executionReasons(execution, config),
  ];
  return {
    tool_id: tool.tool_id,
    passed: reasons.length === 0,
    evidence: execution ? "execution" : "replay",
    reasons,
    sessions: sessions.map((session) => session.session_id),
    equivalence: {
      mean_similarity: mean,
      min_similarity: Math.min(...scores),
      method: config.similarity_method,
      threshold: config.equivalence_threshold,
    },
    wiring: { checked: tool.internal_wiring.length * sessions.length, held },
    latency: {
      composite_ms: composite,
      original_ms: original,
      ratio,
      max: config.max_latency_regression,
      recorded,
    },
    error_parity: unhandled.length === 0,
    unhandled_failures: unhandled,
    ...(execution ? { execution } : {}),
    validated_at: new Date(now()).toISOString(),
  };
}
