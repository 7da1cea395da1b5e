/**
 * Validation by execution in fresh worlds: the only way a chain that writes is executed.
 * For each replayed session, two fresh worlds are started the way the session's was (a
 * fresh upstream process; for syn's own tools, a fresh copy of the sandbox root), the
 * session's calls before the chain are replayed on both, the original calls run on one and
 * the composite on the other, the calls after the chain are replayed on both, and every
 * step's output and every later output are compared. A composite that leaves another state
 * behind than the original calls shows up in the later outputs and fails.
 */
import { mapBounded } from "../core/mod.ts";
import { compositeCallResult, runComposite, type StepExecutor } from "../tools/mod.ts";
import { recordedArguments } from "./execution_validation.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** One fresh world: a step executor on a newly started upstream (or sandbox copy). */
export interface World extends AsyncDisposable {
  execute: StepExecutor;
}

/** Where fresh worlds come from. */
export interface FreshWorlds {
  /**
   * Starts a fresh world for a session (its recorded upstream, or the one given). Throws
   * with a message that says why (a fresh upstream's last stderr lines) when it cannot.
   */
  open(sessionId: string): Promise<World>;
  /** An output as text, the way outputs are compared (as the recorder summarizes them). */
  summarize(output: unknown): string;
  /** Where the worlds are, for reports: `in fresh copies of <root>`, `in fresh <command>`. */
  where: string;
  /** Whether a tool is read-only there now (the composite plan asks before overlapping). */
  readOnly?: (tool: string) => boolean;
}

/** A session as fresh execution needs it: every call, and where the chain starts. */
export interface FreshSession {
  session_id: string;
  /** Every call of the session; `outcome` as recorded, when known. */
  calls: readonly {
    tool_id: string;
    input_params: Record<string, unknown>;
    outcome?: string;
  }[];
  /** Index of the chain's first call in `calls`; the chain's calls are contiguous. */
  chain_start: number;
}

/** How fresh execution runs. */
export interface FreshExecutionOptions {
  /** Where the fresh worlds come from. */
  worlds: FreshWorlds;
  /** Similarity of two outputs as text, in [0, 1] (the configured method). */
  score(left: string, right: string): number;
  /** Sessions run at once (default 2). */
  jobs?: number;
  /** Deadline of one session, both worlds, in ms (default 120 s). */
  sessionDeadlineMs?: number;
}

/** What fresh execution found, per output compared and per session. */
export interface FreshExecutionScore {
  mode: "fresh";
  sessions: number;
  where: string;
  mean_similarity: number;
  min_similarity: number;
  steps: { compared: number; equal: number };
  later: { compared: number; equal: number };
  failures: { session_id: string; error: string }[];
}

export const DEFAULT_FRESH_JOBS = 2;
export const DEFAULT_SESSION_DEADLINE_MS = 120_000;

/** A step's outcome as compared text: its output, or its error. */
function outcomeText(
  worlds: FreshWorlds,
  result: { ok: boolean; output?: unknown; error?: unknown },
): string {
  return result.ok ? worlds.summarize(result.output ?? null) : `error: ${String(result.error)}`;
}

/**
 * Runs calls one by one in a world; each call's outcome as compared text. With
 * `mustReproduce`, a call that succeeded when it was recorded must succeed here too:
 * otherwise the world cannot run the chain (a tool refused, a server that differs), and
 * comparing two failures would prove nothing.
 */
async function replayCalls(
  world: World,
  worlds: FreshWorlds,
  calls: FreshSession["calls"],
  options: { signal: AbortSignal; mustReproduce?: boolean },
): Promise<string[]> {
  const outputs: string[] = [];
  for (const [index, call] of calls.entries()) {
    options.signal.throwIfAborted();
    const result = await world.execute(call.tool_id, call.input_params, options.signal);
    if (options.mustReproduce && call.outcome === "SUCCESS" && !result.ok) {
      throw new Error(
        `step ${index} (${call.tool_id}) succeeded when recorded but failed in a fresh world: ${
          result.error?.message ?? "failed"
        }`,
      );
    }
    outputs.push(outcomeText(worlds, {
      ok: result.ok,
      output: result.output,
      error: result.error?.message,
    }));
  }
  return outputs;
}

/** One session's comparison: outputs compared, how many were equal, the lowest score. */
interface SessionComparison {
  steps: { compared: number; equal: number };
  later: { compared: number; equal: number };
  score: number;
}

function compare(
  left: readonly string[],
  right: readonly string[],
  score: (left: string, right: string) => number,
): { compared: number; equal: number; min: number } {
  let equal = 0;
  let min = 1;
  left.forEach((text, index) => {
    const other = right[index] ?? "";
    if (text === other) equal++;
    min = Math.min(min, text === other ? 1 : score(text, other));
  });
  return { compared: left.length, equal, min };
}

/** The original calls in world A and the composite in world B, the session around both. */
async function executeSession(
  tool: SynthesizedTool,
  session: FreshSession,
  worlds: FreshWorlds,
  options: FreshExecutionOptions,
): Promise<SessionComparison> {
  const signal = AbortSignal.timeout(options.sessionDeadlineMs ?? DEFAULT_SESSION_DEADLINE_MS);
  const length = tool.steps.length;
  const before = session.calls.slice(0, session.chain_start);
  const chain = session.calls.slice(session.chain_start, session.chain_start + length);
  const after = session.calls.slice(session.chain_start + length);
  await using original = await worlds.open(session.session_id);
  await using composite = await worlds.open(session.session_id);
  await Promise.all([
    replayCalls(original, worlds, before, { signal }),
    replayCalls(composite, worlds, before, { signal }),
  ]);
  const args = recordedArguments(tool, {
    session_id: session.session_id,
    events: chain,
    final_output: null,
  });
  const [originalSteps, outcome] = await Promise.all([
    replayCalls(original, worlds, chain, { signal, mustReproduce: true }),
    runComposite(tool, args, {
      execute: (name, stepArgs, stepSignal) =>
        composite.execute(name, stepArgs, AbortSignal.any([stepSignal, signal])),
      deadlineMs: options.sessionDeadlineMs ?? DEFAULT_SESSION_DEADLINE_MS,
      readOnly: worlds.readOnly,
    }),
  ]);
  // What a client receives, step by step (the one result function), is what is compared.
  const served = compositeCallResult(outcome).structured.steps.map((step) =>
    outcomeText(worlds, { ok: step.ok === true, output: step.output, error: step.error })
  );
  const [originalLater, compositeLater] = await Promise.all([
    replayCalls(original, worlds, after, { signal }),
    replayCalls(composite, worlds, after, { signal }),
  ]);
  const steps = compare(originalSteps, served, options.score);
  const later = compare(originalLater, compositeLater, options.score);
  return {
    steps: { compared: steps.compared, equal: steps.equal },
    later: { compared: later.compared, equal: later.equal },
    score: Math.min(steps.min, later.min),
  };
}

/**
 * Validates a composite by executing it in fresh worlds, one pair per session (see the
 * module comment). A session whose worlds cannot start, or that fails or passes its
 * deadline, scores 0 and is listed with the reason.
 */
export async function validateInFreshWorlds(
  tool: SynthesizedTool,
  sessions: readonly FreshSession[],
  options: FreshExecutionOptions,
): Promise<FreshExecutionScore> {
  const { worlds } = options;
  const failures: FreshExecutionScore["failures"] = [];
  const totals = { steps: { compared: 0, equal: 0 }, later: { compared: 0, equal: 0 } };
  const scores = await mapBounded(
    sessions,
    async (session) => {
      try {
        const result = await executeSession(tool, session, worlds, options);
        for (const part of ["steps", "later"] as const) {
          totals[part].compared += result[part].compared;
          totals[part].equal += result[part].equal;
        }
        return result.score;
      } catch (error) {
        failures.push({
          session_id: session.session_id,
          error: error instanceof Error ? error.message : String(error),
        });
        return 0;
      }
    },
    { jobs: options.jobs ?? DEFAULT_FRESH_JOBS },
  );
  return {
    mode: "fresh",
    sessions: sessions.length,
    where: worlds.where,
    mean_similarity: scores.length ? scores.reduce((sum, s) => sum + s, 0) / scores.length : 0,
    min_similarity: scores.length ? Math.min(...scores) : 0,
    ...totals,
    failures,
  };
}
