/**
 * The synthesis loop measured on two public agent benchmarks whose tools really execute
 * (`../shared/conformance/agent-envs/`): BFCL multi-turn base (even scenarios train, odd
 * ones held out) and tau-bench airline's GPT-4o runs (even task ids train, odd ones held
 * out). Everything goes through the CLI as a user runs it: `syn mcp-proxy` records, `syn
 * synthesize run` (deterministic engine), `validate` (executing in fresh upstreams where
 * the CLI can), `approve --promote`; then each held-out session runs as recorded and with
 * the promoted composites standing in for the chains they can express, against a server
 * that answers in order and one that answers after a random pause (`--jitter-ms 20`).
 * Prints chains, composites by evidence, promotions, calls saved, composite calls whose
 * step outputs equal the original calls', and final states equal (BFCL's own
 * `state_checker`; tau-bench's data hash). Progress goes to stderr.
 *
 *   deno run -A scripts/bench_loop.ts [--bench bfcl|tau|all] [--from 0 --to 199]
 *                                     [--top 20] [--jobs 2] [--json] [--keep]
 *
 * `--top` is how many of the mined chains get a composite (default 20, as `syn synthesize
 * mine` lists by default).
 */
import { parseArgs } from "node:util";
import {
  type BenchSplit,
  bfclSplit,
  type LoopFigures,
  loopSkipReason,
  runLoop,
  tauSplit,
} from "./_loop_harness.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    bench: { type: "string", default: "all" },
    from: { type: "string", default: "0" },
    to: { type: "string", default: "199" },
    top: { type: "string", default: "20" },
    jobs: { type: "string", default: "2" },
    json: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});

const started = performance.now();
const progress = (line: string) =>
  console.error(`bench_loop ${((performance.now() - started) / 1000).toFixed(0)}s: ${line}`);

function percent(part: number, whole: number): string {
  return whole ? `${(100 * part / whole).toFixed(1)} %` : "-";
}

function ratio(part: number, whole: number): string {
  return `${part}/${whole}`;
}

/** The figures as a table: one column per server mode. */
function table(figures: LoopFigures, title: string): string {
  const evidence = Object.entries(figures.by_evidence).map(([kind, count]) => `${kind} ${count}`)
    .join(", ") || "none";
  const rows: [string, (mode: LoopFigures["modes"][number]) => string][] = [
    [
      "held-out calls",
      (m) =>
        `${m.calls_before} → ${m.calls_after} (${
          percent(m.calls_before - m.calls_after, m.calls_before)
        } saved)`,
    ],
    ["sessions replaced", (m) => ratio(m.replaced_sessions, figures.held_out_sessions)],
    ["composite calls failed", (m) => ratio(m.composite_calls_failed, m.composite_calls)],
    ["returned their steps", (m) => ratio(m.composite_calls_with_steps, m.composite_calls)],
    ["step outputs = originals", (m) => ratio(m.composite_calls_steps_equal, m.composite_calls)],
    ["later outputs = originals", (m) => ratio(m.later_outputs_equal, m.later_outputs)],
    ["final states equal", (m) => ratio(m.states_equal, m.replaced_sessions)],
  ];
  const width = 30;
  const lines = [
    title,
    `  train ${figures.train_sessions} sessions, held out ${figures.held_out_sessions}; ` +
    `validation options: ${figures.validation_flags.join(" ") || "(no fresh-upstream execution)"}`,
    `  chains mined                ${figures.chains_mined}`,
    `  composites stored           ${figures.composites} (by evidence: ${evidence})`,
    `  promoted                    ${figures.promoted.length} (with replay evidence only: ${figures.promoted_replay_only.length}; refused: ${figures.refused.length})`,
    `  ${"".padEnd(26)}  ${figures.modes.map((mode) => mode.mode.padEnd(width)).join("")}`
      .trimEnd(),
    ...rows.map(([label, cell]) =>
      `  ${label.padEnd(26)}  ${figures.modes.map((mode) => cell(mode).padEnd(width)).join("")}`
        .trimEnd()
    ),
    "  baseline: each held-out session's own calls, sent one at a time (a server answering",
    "  concurrently cannot reorder them, so one run is the baseline of both columns)",
    `  seconds                     ${figures.seconds.toFixed(0)}`,
  ];
  for (const mode of figures.modes) {
    for (const problem of mode.problems.slice(0, 5)) lines.push(`  ${mode.mode}: ${problem}`);
    if (mode.problems.length > 5) lines.push(`  ${mode.mode}: … ${mode.problems.length - 5} more`);
  }
  const reasons = Object.entries(figures.not_expressible).sort((a, b) => b[1] - a[1]);
  lines.push(
    `  promoted chains in held-out sessions: ${figures.chain_occurrences} occurrence(s), ` +
      `${reasons.reduce((sum, [, count]) => sum + count, 0)} not expressible by the composite` +
      (reasons.length ? ":" : ""),
    ...reasons.slice(0, 8).map(([reason, count]) => `    ${String(count).padStart(4)}  ${reason}`),
  );
  if (figures.same_id) {
    lines.push(
      `  composites that took an id another chain's composite had (one file kept): ${figures.same_id}`,
    );
  }
  if (figures.reruns.length) {
    lines.push(
      `  held-out runs repeated (the server's final state never appeared): ${figures.reruns.length}`,
    );
    for (const rerun of figures.reruns.slice(0, 3)) lines.push(`    ${rerun}`);
  }
  for (const refusal of figures.refused.slice(0, 5)) {
    lines.push(`  refused ${refusal.tool_id}: ${refusal.reason}`);
  }
  return lines.join("\n");
}

async function measure(split: BenchSplit, title: string): Promise<LoopFigures> {
  const dir = await Deno.makeTempDir({ prefix: `syn-bench-loop-${split.bench}-` });
  try {
    const figures = await runLoop(split, {
      dir,
      top: Number(values.top),
      jobs: Number(values.jobs),
      progress,
    });
    if (!values.json) console.log(`${table(figures, title)}\n`);
    return figures;
  } finally {
    if (values.keep) progress(`work folder kept: ${dir}`);
    else await Deno.remove(dir, { recursive: true });
  }
}

const skip = loopSkipReason();
if (skip) {
  console.log(`bench_loop: not run: ${skip}`);
} else {
  const all: LoopFigures[] = [];
  if (values.bench === "all" || values.bench === "bfcl") {
    const split = await bfclSplit(Number(values.from), Number(values.to));
    all.push(
      await measure(
        split,
        `the loop on BFCL multi-turn base, scenarios ${values.from}–${values.to} ` +
          `(top ${values.top} chains, ${values.jobs} jobs)`,
      ),
    );
  }
  if (values.bench === "all" || values.bench === "tau") {
    all.push(
      await measure(
        await tauSplit(),
        `the loop on tau-bench airline, GPT-4o runs (top ${values.top} chains, ${values.jobs} jobs)`,
      ),
    );
  }
  if (values.json) console.log(JSON.stringify(all, null, 2));
}
