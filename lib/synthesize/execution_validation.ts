/**
 * Validation beyond the spec's offline replay: the composite is executed on the inputs of
 * the recorded sessions, through a step executor — syn's sandbox for syn's own tools, or a
 * live MCP server for its tools — and its final output is compared. Replaying recorded
 * values cannot catch a wiring that happens to match; running the steps can.
 *
 * Where the target can re-run calls (a live server whose outputs may have moved since the
 * recording), the session's original calls are also re-run one by one, as recorded, and
 * the composite is scored against that live run; otherwise against the recorded output.
 */
import { runComposite, type StepExecutor } from "../tools/mod.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** What execution needs of a replayed session. */
export interface RecordedRun {
  session_id: string;
  events: readonly { tool_id: string; input_params: Record<string, unknown> }[];
  final_output: string | null;
}

/** Where and how a composite is executed for validation. */
export interface ExecutionTarget {
  /** Runs one step's tool. */
  execute: StepExecutor;
  /** A step's output as the recording summarized it, so outputs compare like for like. */
  summarize(output: unknown): string;
  /** Where the steps ran, for reports: `in the sandbox`, `against the upstream`. */
  where: string;
  /** Re-run the original calls one by one and score against them (else: the recording). */
  rerunOriginals: boolean;
  /** Deadline of one composite run. */
  deadlineMs?: number;
}

export interface ExecutionScore {
  sessions: number;
  /** `rerun`: scored against the original calls re-run live; `recorded`: the recording. */
  baseline: "rerun" | "recorded";
  where: string;
  mean_similarity: number;
  min_similarity: number;
  /** With a rerun: the composite's live output against the recorded one, for reference. */
  recorded_mean_similarity?: number;
  failures: { session_id: string; error: string }[];
}

const DEFAULT_DEADLINE_MS = 60_000;

/** The composite's arguments in a recorded session: each parameter from the call that took it. */
export function recordedArguments(
  tool: SynthesizedTool,
  session: RecordedRun,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  tool.steps.forEach((step, index) => {
    for (const [key, input] of Object.entries(step.inputs)) {
      if (!("parameter" in input)) continue;
      const value = session.events[index]?.input_params[key];
      if (value !== undefined) args[input.parameter] = value;
    }
  });
  return args;
}

/** The composite's final output on the session's arguments, summarized; throws on failure. */
async function executedOutput(
  tool: SynthesizedTool,
  session: RecordedRun,
  target: ExecutionTarget,
): Promise<string> {
  const outcome = await runComposite(tool, recordedArguments(tool, session), {
    execute: target.execute,
    deadlineMs: target.deadlineMs ?? DEFAULT_DEADLINE_MS,
  });
  return target.summarize(outcome.output);
}

/** The session's calls re-run one by one as recorded; the last one's output, summarized. */
async function rerunOutput(session: RecordedRun, target: ExecutionTarget): Promise<string> {
  const signal = AbortSignal.timeout(target.deadlineMs ?? DEFAULT_DEADLINE_MS);
  let last: unknown = null;
  for (const event of session.events) {
    const result = await target.execute(event.tool_id, event.input_params, signal);
    last = result.ok ? result.output : { error: result.error?.message ?? "failed" };
  }
  return target.summarize(last);
}

function mean(values: readonly number[]): number {
  return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;
}

/**
 * Scores by execution: the composite runs on each session's recorded arguments through
 * `target`; `score` compares its summarized final output with the baseline (the original
 * calls re-run, or the recorded output). A run that fails scores 0 and is listed.
 */
export async function validateByExecution(
  tool: SynthesizedTool,
  sessions: readonly RecordedRun[],
  options: {
    target: ExecutionTarget;
    score: (executed: string, baseline: string | null) => number;
  },
): Promise<ExecutionScore> {
  const { target, score } = options;
  const scores: number[] = [];
  const recordedScores: number[] = [];
  const failures: ExecutionScore["failures"] = [];
  for (const session of sessions) {
    let executed: string;
    try {
      executed = await executedOutput(tool, session, target);
    } catch (error) {
      failures.push({ session_id: session.session_id, error: (error as Error).message });
      scores.push(0);
      recordedScores.push(0);
      continue;
    }
    recordedScores.push(score(executed, session.final_output));
    const baseline = target.rerunOriginals
      ? await rerunOutput(session, target)
      : session.final_output;
    scores.push(score(executed, baseline));
  }
  return {
    sessions: sessions.length,
    baseline: target.rerunOriginals ? "rerun" : "recorded",
    where: target.where,
    mean_similarity: mean(scores),
    min_similarity: scores.length ? Math.min(...scores) : 0,
    ...(target.rerunOriginals ? { recorded_mean_similarity: mean(recordedScores) } : {}),
    failures,
  };
}
