/**
 * Validation beyond the spec's offline replay: the composite is executed, in the sandbox,
 * on the inputs of the recorded sessions, and its final output is compared with the
 * recorded one. Replaying recorded values cannot catch a wiring that happens to match;
 * running the steps can. Possible where every step is a tool syn runs.
 */
import { outputSummary, type ToolResult } from "../tools/mod.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** What execution needs of a replayed session. */
export interface RecordedRun {
  session_id: string;
  events: readonly { input_params: Record<string, unknown> }[];
  final_output: string | null;
}

export interface ExecutionScore {
  sessions: number;
  mean_similarity: number;
  min_similarity: number;
  failures: { session_id: string; error: string }[];
}

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

/**
 * Scores by execution: `run` calls the composite (through a tool session) with the
 * arguments; `score` compares its summarized final output with the recorded one.
 */
export async function validateByExecution(
  tool: SynthesizedTool,
  sessions: readonly RecordedRun[],
  run: (args: Record<string, unknown>) => Promise<ToolResult>,
  score: (executed: string, recorded: string | null) => number,
): Promise<ExecutionScore> {
  const scores: number[] = [];
  const failures: ExecutionScore["failures"] = [];
  for (const session of sessions) {
    const result = await run(recordedArguments(tool, session));
    if (!result.ok) {
      failures.push({ session_id: session.session_id, error: result.error?.message ?? "failed" });
      scores.push(0);
      continue;
    }
    const last = (result.output as { output?: unknown }).output ?? null;
    scores.push(score(outputSummary(last), session.final_output));
  }
  return {
    sessions: sessions.length,
    mean_similarity: scores.length
      ? scores.reduce((sum, score) => sum + score, 0) / scores.length
      : 0,
    min_similarity: scores.length ? Math.min(...scores) : 0,
    failures,
  };
}
