/**
 * The synthesis loop run as a user runs it, through the CLI, on the executable agent
 * benchmarks in `../shared/conformance/agent-envs/` (BFCL multi-turn, tau-bench airline):
 * sessions recorded through `syn mcp-proxy`, `syn synthesize run`, `validate`, `approve
 * --promote`; then held-out sessions run twice through `syn mcp-proxy --allow-writes` —
 * as recorded, and with every chain a promoted composite can express replaced by one
 * composite call — and their outputs and final states compared. Used by
 * `scripts/bench_loop.ts` and `tests/synthesize_benchmark_loop_test.ts`.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { RegistryEntry, SynthesizedTool } from "../lib/synthesize/mod.ts";
import { stepOutput } from "../lib/proxy/mod.ts";
import { mapBounded } from "../lib/core/mod.ts";
import { childEnv, collectStream } from "../tests/fakes/child_env.ts";
import {
  chainNamesOccur,
  chainOccurrences,
  type ObservedCall,
  type PlannedCall,
  planReplacement,
  sameOutput,
} from "./_loop_replace.ts";

/** The repository's root, and the shared folder beside it. */
export const REPO = fileURLToPath(new URL("../", import.meta.url));
const SHARED = join(REPO, "..", "shared", "conformance");
export const SERVER = join(SHARED, "agent-envs", "server.py");
const ENVS = join(SHARED, "agent-envs", "envs");
const TRACES = join(SHARED, "agent-traces");
const STATE_CHECK = join(REPO, "scripts", "bfcl_state_equal.py");

/** One child's wait, at most. */
const CHILD_DEADLINE_MS = 180_000;
/** How long a server's `--state-out` file may take to appear after its input ended. */
const STATE_FILE_WAIT_MS = 15_000;

/** Why the loop cannot run here (undefined: it can). */
export function loopSkipReason(): string | undefined {
  try {
    Deno.statSync(SERVER);
    Deno.statSync(join(TRACES, "bfcl-multi-turn", "sessions.jsonl"));
  } catch {
    return `the benchmark environments are not in ${join(REPO, "..", "shared")}`;
  }
  try {
    const probe = new Deno.Command("python3", {
      args: ["-c", "import mpmath"],
      clearEnv: true,
      env: childEnv(),
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (!probe.success) return "python3 has no mpmath module (Debian: python3-mpmath)";
  } catch {
    return "no python3 on PATH";
  }
  return undefined;
}

/** A benchmark session: its id, the server arguments it starts with, its calls in order. */
export interface BenchSession {
  id: string;
  server: string[];
  calls: { name: string; args: Record<string, unknown> }[];
}

/** Which benchmark: its sessions split into train and held out. */
export interface BenchSplit {
  bench: "bfcl" | "tau";
  train: BenchSession[];
  heldOut: BenchSession[];
}

async function readSessions(file: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(TRACES, file));
  return text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
}

function callsOf(session: Record<string, unknown>): BenchSession["calls"] {
  const calls = session.calls as { name: string; args: Record<string, unknown> }[];
  return calls.map((call) => ({ name: call.name, args: call.args ?? {} }));
}

/** BFCL base scenarios `from` to `to` (inclusive): even numbers train, odd ones held out. */
export async function bfclSplit(from = 0, to = 199): Promise<BenchSplit> {
  const split: BenchSplit = { bench: "bfcl", train: [], heldOut: [] };
  for (const session of await readSessions("bfcl-multi-turn/sessions.jsonl")) {
    const id = String(session.session_id);
    const number = Number(/^multi_turn_base_(\d+)$/.exec(id)?.[1] ?? NaN);
    if (!(number >= from && number <= to)) continue;
    const bench = { id, server: ["bfcl", "--scenario", id], calls: callsOf(session) };
    (number % 2 === 0 ? split.train : split.heldOut).push(bench);
  }
  return split;
}

/** tau-bench airline's GPT-4o runs with calls: even task ids train, odd ones held out. */
export async function tauSplit(): Promise<BenchSplit> {
  const split: BenchSplit = { bench: "tau", train: [], heldOut: [] };
  for (const session of await readSessions("tau-bench/sessions.jsonl")) {
    if (session.domain !== "airline" || session.kind !== "agent_run") continue;
    const calls = callsOf(session);
    if (!calls.length) continue;
    const bench = { id: String(session.session_id), server: ["tau", "--domain", "airline"], calls };
    (Number(session.task_id) % 2 === 0 ? split.train : split.heldOut).push(bench);
  }
  return split;
}

/** The command that starts this checkout's `syn`. */
const SYN = [Deno.execPath(), "run", "-A", join(REPO, "main.ts")];

/** `syn …args` in `cwd`, with an explicit environment and a deadline. */
export async function runSyn(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(SYN[0], {
    args: [...SYN.slice(1), ...args],
    cwd,
    clearEnv: true,
    env: childEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_DEADLINE_MS);
  try {
    const result = await child.output();
    const decoder = new TextDecoder();
    return {
      code: result.code,
      stdout: decoder.decode(result.stdout),
      stderr: decoder.decode(result.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** `syn …args --json`, parsed; throws with its stderr when it fails. */
async function synJson<T>(args: string[], cwd: string): Promise<T> {
  const result = await runSyn([...args, "--json"], cwd);
  if (result.code !== 0) {
    throw new Error(`syn ${args.join(" ")} exited ${result.code}:\n${result.stderr.slice(-2000)}`);
  }
  return JSON.parse(result.stdout) as T;
}

/** What one sent call answered. */
export interface CallAnswer {
  result: CallToolResult;
  output: unknown;
}

/** How a session runs through the proxy. */
export interface ProxySessionOptions {
  /** The benchmark server's arguments (`bfcl --scenario …`, `tau --domain airline`). */
  server: string[];
  allowWrites?: boolean;
  /** Where the server writes its final state when its input ends. */
  stateOut?: string;
  jitterMs?: number;
  /** Told when a run is repeated because the server's final state never appeared. */
  onRerun?: (reason: string) => void;
}

/**
 * One session through a new `syn mcp-proxy` in front of the benchmark server: the calls
 * sent one after another by the official SDK client; each answer kept. With `stateOut`,
 * waits until the server has written its final state; a server ended before it could
 * (the proxy gives it a bounded grace, which a loaded machine can outlast) means
 * another run of the session (at most three in all), reported through `onRerun`.
 */
export async function proxySession(
  stateDir: string,
  calls: readonly { name: string; args: Record<string, unknown> }[],
  options: ProxySessionOptions,
): Promise<CallAnswer[]> {
  for (let attempt = 1;; attempt++) {
    try {
      return await proxyRun(stateDir, calls, options);
    } catch (error) {
      if (!(error instanceof StateMissing) || attempt >= STATE_ATTEMPTS) throw error;
      options.onRerun?.(error.message);
    }
  }
}

/** Runs of one session at most, when its server keeps being ended before its final write. */
const STATE_ATTEMPTS = 3;

class StateMissing extends Error {}

async function proxyRun(
  stateDir: string,
  calls: readonly { name: string; args: Record<string, unknown> }[],
  options: ProxySessionOptions,
): Promise<CallAnswer[]> {
  const server = [
    SERVER,
    ...options.server,
    ...(options.stateOut ? ["--state-out", options.stateOut] : []),
    ...(options.jitterMs ? ["--jitter-ms", String(options.jitterMs)] : []),
  ];
  const transport = new StdioClientTransport({
    command: SYN[0],
    args: [
      ...SYN.slice(1),
      "mcp-proxy",
      "--state-dir",
      stateDir,
      ...(options.allowWrites ? ["--allow-writes"] : []),
      "--",
      "python3",
      ...server,
    ],
    env: childEnv(),
    stderr: "pipe",
  });
  const stderr = collectStream(transport.stderr);
  const client = new Client({ name: "bench-loop-agent", version: "1.0.0" });
  const answers: CallAnswer[] = [];
  try {
    await client.connect(transport, { timeout: 60_000 });
    for (const call of calls) {
      const result = await client.callTool({ name: call.name, arguments: call.args }, {
        timeout: 120_000,
      }) as CallToolResult;
      answers.push({ result, output: stepOutput(result) });
    }
  } catch (error) {
    throw new Error(`mcp-proxy stderr:\n${stderr.text().slice(-2000)}`, { cause: error });
  } finally {
    await client.close();
  }
  if (options.stateOut) {
    await stateWritten(options.stateOut, options.server[0] === "bfcl", stderr.text());
  }
  return answers;
}

/** Waits for the server's final state (bfcl writes FILE.json last). */
async function stateWritten(stateOut: string, bfcl: boolean, stderr: string): Promise<void> {
  const file = bfcl ? `${stateOut}.json` : stateOut;
  const deadline = Date.now() + STATE_FILE_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await Deno.stat(file);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new StateMissing(
    `the server wrote no final state to ${file}; the proxy's stderr ends: ${
      stderr.trim().split("\n").slice(-3).join(" | ")
    }`,
  );
}

/** What the loop measured on one benchmark. */
export interface LoopFigures {
  bench: "bfcl" | "tau";
  train_sessions: number;
  held_out_sessions: number;
  chains_mined: number;
  /** Composites stored (distinct tool ids). */
  composites: number;
  /** Composites written under an id another chain's composite already had (one file kept). */
  same_id: number;
  /**
   * Validation outcome per composite: its evidence (`execution`, `replay`), `failed` (stays
   * DRAFT) or `too few sessions` (fewer than `min_replay_sessions` hold the chain).
   */
  by_evidence: Record<string, number>;
  promoted: string[];
  /** Promoted composites whose registry entry has no execution evidence. */
  promoted_replay_only: string[];
  refused: { tool_id: string; reason: string }[];
  /** Which of the validation options this checkout's CLI has. */
  validation_flags: string[];
  /** Occurrences of a promoted composite's chain (by tool names) in the held-out sessions. */
  chain_occurrences: number;
  /** Why occurrences could not be replaced: reason → count (overlapping chains each count). */
  not_expressible: Record<string, number>;
  /** Held-out runs repeated because the server's final state never appeared, and why. */
  reruns: string[];
  modes: ModeFigures[];
  seconds: number;
}

/** The held-out sessions, replaced, against one kind of server. */
export interface ModeFigures {
  mode: string;
  calls_before: number;
  calls_after: number;
  replaced_sessions: number;
  composite_calls: number;
  /** Composite calls that returned a list of steps (structured content `steps`). */
  composite_calls_with_steps: number;
  /** Composite calls whose every step output equals the original call's. */
  composite_calls_steps_equal: number;
  composite_calls_failed: number;
  later_outputs: number;
  later_outputs_equal: number;
  states_equal: number;
  problems: string[];
}

/** How the loop runs. */
export interface LoopOptions {
  /** The work folder (state folder, final states); its `syn.jsonc` configures synthesis. */
  dir: string;
  top: number;
  jobs?: number;
  jitterModes?: number[];
  progress?: (line: string) => void;
}

/**
 * The whole loop on `split`: record the train sessions, mine, synthesize, validate,
 * promote; replace in the held-out sessions; compare outputs and final states.
 */
export async function runLoop(split: BenchSplit, options: LoopOptions): Promise<LoopFigures> {
  const started = performance.now();
  const progress = options.progress ?? (() => {});
  const jobs = options.jobs ?? 2;
  const stateDir = join(options.dir, "state");
  let done = 0;
  await mapBounded(split.train, async (session) => {
    await proxySession(stateDir, session.calls, { server: session.server });
    if (++done % 10 === 0 || done === split.train.length) {
      progress(`${split.bench}: recorded ${done}/${split.train.length} train sessions`);
    }
  }, { jobs: jobs });
  const figures = await synthesizeAndPromote(split, stateDir, options);
  const promoted = await promotedTools(stateDir, options.dir);
  progress(`${split.bench}: ${promoted.length} promoted; running held-out sessions`);
  figures.modes = await heldOut(split, stateDir, promoted, figures, options);
  figures.seconds = (performance.now() - started) / 1000;
  return figures;
}

/** The validation options this checkout's `syn synthesize` offers. */
async function validationFlags(cwd: string): Promise<string[]> {
  const help = (await runSyn(["synthesize", "--help"], cwd)).stdout;
  return ["--fresh-upstream", "--jobs", "--allow-replay-only"].filter((flag) =>
    help.includes(flag)
  );
}

async function synthesizeAndPromote(
  split: BenchSplit,
  stateDir: string,
  options: LoopOptions,
): Promise<LoopFigures> {
  const cwd = options.dir;
  const progress = options.progress ?? (() => {});
  const state = ["--state-dir", stateDir];
  const mined = await synJson<{ chains: unknown[] }>(
    ["synthesize", "mine", "--top", "1000", ...state],
    cwd,
  );
  const written = await synJson<{ tools: { tool: SynthesizedTool }[] }>(
    ["synthesize", "run", "--top", String(options.top), ...state],
    cwd,
  );
  const flags = await validationFlags(cwd);
  progress(
    `${split.bench}: ${mined.chains.length} chains mined, ${written.tools.length} composites ` +
      `written; validating (${flags.join(" ") || "no fresh-upstream support"})`,
  );
  const figures: LoopFigures = {
    bench: split.bench,
    train_sessions: split.train.length,
    held_out_sessions: split.heldOut.length,
    chains_mined: mined.chains.length,
    composites: written.tools.length,
    same_id: 0,
    by_evidence: {},
    promoted: [],
    promoted_replay_only: [],
    refused: [],
    validation_flags: flags,
    chain_occurrences: 0,
    not_expressible: {},
    reruns: [],
    modes: [],
    seconds: 0,
  };
  // Each stored tool once: two chains whose ids are the same (long ids are cut) share a file,
  // and the later one is what the registry holds.
  const ids = [...new Set(written.tools.map(({ tool }) => tool.tool_id))];
  figures.composites = ids.length;
  figures.same_id = written.tools.length - ids.length;
  for (const id of ids) {
    const evidence = await validateOne(id, state, flags, cwd);
    figures.by_evidence[evidence] = (figures.by_evidence[evidence] ?? 0) + 1;
    if (evidence === "failed" || evidence === "too few sessions") continue;
    const approved = await runSyn(
      ["synthesize", "approve", id, "--promote", ...state],
      cwd,
    );
    if (approved.code !== 0) {
      figures.refused.push({ tool_id: id, reason: approved.stderr.trim().slice(0, 300) });
    }
  }
  const entries = await registryEntries(stateDir, cwd);
  figures.promoted = entries.filter((entry) => entry.status === "PROMOTED")
    .map((entry) => entry.tool.tool_id);
  figures.promoted_replay_only = entries.filter((entry) =>
    entry.status === "PROMOTED" && evidenceOf(entry) !== "execution"
  ).map((entry) => entry.tool.tool_id);
  return figures;
}

/** Validates one tool by executing it in fresh upstreams where the CLI can. */
async function validateOne(
  toolId: string,
  state: string[],
  flags: string[],
  cwd: string,
): Promise<string> {
  const execute = flags.includes("--fresh-upstream") ? ["--execute", "--fresh-upstream"] : [];
  const jobs = flags.includes("--jobs") ? ["--jobs", "2"] : [];
  const result = await runSyn(
    ["synthesize", "validate", toolId, ...execute, ...jobs, ...state, "--json"],
    cwd,
  );
  if (result.code !== 0 && !result.stdout.trim()) {
    if (/min_replay_sessions/.test(result.stderr)) return "too few sessions";
    throw new Error(`syn synthesize validate ${toolId}:\n${result.stderr.slice(-2000)}`);
  }
  const answer = JSON.parse(result.stdout) as { status: string; validation: unknown };
  if (answer.status === "DRAFT") return "failed";
  return evidenceOf({ validation: answer.validation }) ?? "replay";
}

function evidenceOf(entry: { validation: unknown }): string | undefined {
  const validation = entry.validation as { evidence?: string } | null;
  return validation?.evidence;
}

async function registryEntries(stateDir: string, cwd: string): Promise<RegistryEntry[]> {
  return (await synJson<{ tools: RegistryEntry[] }>(
    ["synthesize", "list", "--state-dir", stateDir],
    cwd,
  )).tools;
}

async function promotedTools(stateDir: string, cwd: string): Promise<SynthesizedTool[]> {
  return (await registryEntries(stateDir, cwd)).filter((entry) => entry.status === "PROMOTED")
    .map((entry) => entry.tool);
}

/** One held-out session: its original run and its plan. */
interface Original {
  session: BenchSession;
  observed: ObservedCall[];
  /** Empty when the session holds no promoted chain (it was not run). */
  plan: PlannedCall[];
  stateOut: string;
  skipped?: boolean;
}

async function heldOut(
  split: BenchSplit,
  stateDir: string,
  promoted: readonly SynthesizedTool[],
  figures: LoopFigures,
  options: LoopOptions,
): Promise<ModeFigures[]> {
  const jobs = options.jobs ?? 2;
  const progress = options.progress ?? (() => {});
  const states = join(options.dir, "states");
  await Deno.mkdir(states, { recursive: true });
  const rerun = (id: string) => (reason: string) => {
    figures.reruns.push(`${id}: ${reason}`);
    progress(`${split.bench}: ${id} runs again: ${reason}`);
  };
  // The original calls go one at a time, so a server that answers concurrently cannot
  // reorder them: one run of each is the baseline for every mode.
  const originals = await mapBounded(split.heldOut, async (session, index) => {
    const stateOut = join(states, `${index}-original`);
    if (!chainNamesOccur(session.calls, promoted)) {
      // Nothing to replace: the session would be sent as it is, so it need not run.
      const observed = session.calls.map((call) => ({ ...call, output: undefined, ok: true }));
      return { session, observed, plan: planReplacement([], promoted), stateOut, skipped: true };
    }
    let answers: CallAnswer[];
    try {
      answers = await proxySession(stateDir, session.calls, {
        server: session.server,
        stateOut,
        onRerun: rerun(session.id),
      });
    } catch (error) {
      if (!(error instanceof StateMissing)) throw error;
      figures.reruns.push(`${session.id}: left out, no final state in ${STATE_ATTEMPTS} runs`);
      const observed = session.calls.map((call) => ({ ...call, output: undefined, ok: true }));
      return { session, observed, plan: planReplacement([], promoted), stateOut, skipped: true };
    }
    const observed = session.calls.map((call, at) => ({
      ...call,
      output: answers[at].output,
      ok: answers[at].result.isError !== true,
    }));
    for (const occurrence of chainOccurrences(observed, promoted)) {
      figures.chain_occurrences++;
      if (occurrence.reason === undefined) continue;
      figures.not_expressible[occurrence.reason] = (figures.not_expressible[occurrence.reason] ??
        0) + 1;
    }
    return { session, observed, plan: planReplacement(observed, promoted), stateOut };
  }, { jobs: jobs });
  const ran = originals.filter((original) => !original.skipped).length;
  progress(
    `${split.bench}: ${ran} held-out sessions with a promoted chain run as recorded ` +
      `(${originals.length - ran} without one need no run)`,
  );
  const modes: ModeFigures[] = [];
  for (const jitterMs of options.jitterModes ?? [0, 20]) {
    modes.push(await replacedMode(originals, stateDir, jitterMs, { ...options, rerun }));
    progress(`${split.bench}: replaced sessions run (${modes.at(-1)!.mode})`);
  }
  return modes;
}

async function replacedMode(
  originals: readonly Original[],
  stateDir: string,
  jitterMs: number,
  options: LoopOptions & { rerun: (id: string) => (reason: string) => void },
): Promise<ModeFigures> {
  const figures: ModeFigures = {
    mode: jitterMs ? `server --jitter-ms ${jitterMs}` : "server in order",
    calls_before: 0,
    calls_after: 0,
    replaced_sessions: 0,
    composite_calls: 0,
    composite_calls_with_steps: 0,
    composite_calls_steps_equal: 0,
    composite_calls_failed: 0,
    later_outputs: 0,
    later_outputs_equal: 0,
    states_equal: 0,
    problems: [],
  };
  const pairs: [string, string, string][] = [];
  await mapBounded(originals, async (original, index) => {
    figures.calls_before += original.observed.length;
    figures.calls_after += original.skipped ? original.observed.length : original.plan.length;
    if (!original.plan.some((call) => call.kind === "composite")) return;
    figures.replaced_sessions++;
    const stateOut = join(options.dir, "states", `${index}-replaced-${jitterMs}`);
    let answers: CallAnswer[];
    try {
      answers = await proxySession(stateDir, original.plan, {
        server: original.session.server,
        allowWrites: true,
        stateOut,
        jitterMs,
        onRerun: options.rerun(original.session.id),
      });
    } catch (error) {
      if (!(error instanceof StateMissing)) throw error;
      figures.problems.push(`${original.session.id}: no final state in ${STATE_ATTEMPTS} runs`);
      return;
    }
    compareAnswers(original, answers, figures);
    pairs.push([original.session.id, original.stateOut, stateOut]);
  }, { jobs: options.jobs ?? 2 });
  const bfcl = originals[0]?.session.server[0] === "bfcl";
  const equal = bfcl ? await bfclStatesEqual(pairs) : await tauStatesEqual(pairs);
  for (const [index, [id]] of pairs.entries()) {
    if (equal[index] === true) figures.states_equal++;
    else figures.problems.push(`${id}: final state differs: ${equal[index]}`);
  }
  return figures;
}

/** Counts what the replaced run answered against the original run's outputs. */
function compareAnswers(original: Original, answers: CallAnswer[], figures: ModeFigures): void {
  const id = original.session.id;
  original.plan.forEach((call, at) => {
    const answer = answers[at];
    if (call.kind === "call") {
      figures.later_outputs++;
      if (sameOutput(answer.output, original.observed[call.index].output)) {
        figures.later_outputs_equal++;
      } else figures.problems.push(`${id}: call ${call.index} (${call.name}) answered otherwise`);
      return;
    }
    figures.composite_calls++;
    if (answer.result.isError === true) {
      figures.composite_calls_failed++;
      figures.problems.push(`${id}: ${call.name} failed: ${JSON.stringify(answer.output)}`);
    }
    const steps = stepsOf(answer.result);
    if (!steps) {
      figures.problems.push(`${id}: ${call.name} returned no steps`);
      return;
    }
    figures.composite_calls_with_steps++;
    const equal = call.covers.every((index, step) =>
      steps[step]?.ok !== false &&
      sameOutput(steps[step]?.output, original.observed[index].output)
    ) && steps.length === call.covers.length;
    if (equal) figures.composite_calls_steps_equal++;
    else figures.problems.push(`${id}: ${call.name}'s step outputs differ from the originals`);
  });
}

/** The `steps` of a composite's structured content, when it has them. */
function stepsOf(result: CallToolResult): { ok?: boolean; output?: unknown }[] | undefined {
  const structured = result.structuredContent as { steps?: unknown } | undefined;
  return Array.isArray(structured?.steps)
    ? structured.steps as { ok?: boolean; output?: unknown }[]
    : undefined;
}

/** BFCL: its own `state_checker` on each pair of pickles, and the JSON snapshots' equality. */
async function bfclStatesEqual(pairs: [string, string, string][]): Promise<(true | string)[]> {
  if (!pairs.length) return [];
  const child = new Deno.Command("python3", {
    args: [STATE_CHECK, ENVS],
    clearEnv: true,
    env: childEnv(),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_DEADLINE_MS);
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(JSON.stringify(pairs.map(([, a, b]) => [a, b]))),
  );
  await writer.close();
  const result = await child.output();
  clearTimeout(timer);
  const decoder = new TextDecoder();
  if (!result.success) throw new Error(`state check failed:\n${decoder.decode(result.stderr)}`);
  const verdicts = JSON.parse(decoder.decode(result.stdout)) as {
    valid: boolean;
    snapshot_equal: boolean;
    error?: string;
  }[];
  return verdicts.map((verdict) =>
    verdict.valid && verdict.snapshot_equal
      ? true
      : `state_checker ${verdict.valid ? "passes" : `fails (${verdict.error})`}, snapshot ${
        verdict.snapshot_equal ? "equal" : "differs"
      }`
  );
}

/** tau-bench: the data hash the server wrote. */
async function tauStatesEqual(pairs: [string, string, string][]): Promise<(true | string)[]> {
  const hash = async (file: string) =>
    (JSON.parse(await Deno.readTextFile(file)) as { data_hash: string }).data_hash;
  const verdicts: (true | string)[] = [];
  for (const [, a, b] of pairs) {
    const [left, right] = [await hash(a), await hash(b)];
    verdicts.push(left === right ? true : `data hash ${right.slice(0, 12)} ≠ ${left.slice(0, 12)}`);
  }
  return verdicts;
}
