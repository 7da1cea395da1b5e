/**
 * Start-up benchmark (printed, never asserted):
 *
 *   deno run -A scripts/bench_cold.ts [--runs 10] [--against <checkout>]
 *
 * Runs each command as a whole process, alternating with a bare `deno run` of a one-line
 * script (A B A B …, one warm-up pair first), and prints min / median / max wall time of
 * both and the ratio of the medians, then which goals hold. The bare run is the floor: the
 * same Deno, the same cache, the same machine load, measured in the same minute.
 *
 * With `--against`, each run also starts the same command from another checkout (a copy of
 * the tree with one change, e.g. from `git worktree add`), the two in turn, and the table
 * gives that tree's times and the median of the paired differences (this − other).
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../tests/fakes/child_env.ts";

const REPOSITORY = dirname(dirname(fileURLToPath(import.meta.url)));
const runsFlag = Deno.args.indexOf("--runs");
const RUNS = runsFlag >= 0 ? Number(Deno.args[runsFlag + 1]) : 10;
const againstFlag = Deno.args.indexOf("--against");
const AGAINST = againstFlag >= 0 ? resolve(Deno.args[againstFlag + 1]) : undefined;

interface Case {
  name: string;
  args: string[];
  goal: number;
  /** Standard input, when the command reads it. */
  stdin?: string;
}

const work = await Deno.makeTempDir({ prefix: "syn-bench-cold-" });
await Deno.writeTextFile(join(work, "bare.ts"), 'console.log("ok");\n');
await Deno.writeTextFile(join(work, "a.json"), '{"a": 1, "b": [1], "c": {"d": 1}}\n');
await Deno.writeTextFile(join(work, "b.json"), '{"a": 2, "b": [1, 2], "e": "x/y", "c": {}}\n');
await Deno.mkdir(join(work, "root"));
await Deno.writeTextFile(join(work, "root", "notes.md"), "TODO: call Ada\n");

/** The cases, run from the checkout at `repository`. */
function casesOf(repository: string): Case[] {
  const config = join(repository, "deno.json");
  const main = join(repository, "main.ts");
  const syn = (...args: string[]) => ["run", "-A", "--config", config, main, ...args];
  return [
    { name: "syn --version", args: syn("--version"), goal: 1.3 },
    { name: "syn --help", args: syn("--help"), goal: 1.3 },
    {
      name: "syn validate <file>",
      args: syn("validate", join(repository, "schemas/examples/canonical-baseline.json")),
      goal: 2,
    },
    { name: "syn diff a b", args: syn("diff", "a.json", "b.json"), goal: 2 },
    {
      name: "syn generate (deterministic, own validator child)",
      args: syn("generate", "a pulsing blue circle", "--out", "out", "--log-dir", "logs"),
      goal: 4,
    },
    {
      name: "syn tools run fs.read_text (cold)",
      args: syn("tools", "run", "fs.read_text", "--root", "root", "--args", '{"path":"notes.md"}'),
      goal: 3,
    },
  ];
}

const CASES = casesOf(REPOSITORY);
const OTHER_CASES = AGAINST ? casesOf(AGAINST) : undefined;

/** Wall time of one whole process, in ms; a failing command stops the benchmark. */
async function timeProcess(args: string[], stdin?: string): Promise<number> {
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: work,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "piped",
    env: childEnv(),
    clearEnv: true,
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const { code, stderr } = await child.output();
  const elapsed = performance.now() - start;
  // diff exits 1 when the documents differ: that is its answer, not a failure.
  if (code !== 0 && !(code === 1 && args.includes("diff"))) {
    throw new Error(`${args.join(" ")} exited ${code}: ${new TextDecoder().decode(stderr)}`);
  }
  return elapsed;
}

interface Stats {
  min: number;
  median: number;
  max: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

interface Measured {
  command: Stats;
  bare: Stats;
  /** With `--against`: the other checkout's times and the paired differences (this − other). */
  other?: { times: Stats; difference: number };
}

async function measure(item: Case, other?: Case): Promise<Measured> {
  const bareArgs = ["run", "-A", join(work, "bare.ts")];
  await timeProcess(bareArgs);
  await timeProcess(item.args, item.stdin);
  if (other) await timeProcess(other.args, other.stdin);
  const command: number[] = [];
  const bare: number[] = [];
  const others: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    bare.push(await timeProcess(bareArgs));
    if (other && run % 2) others.push(await timeProcess(other.args, other.stdin));
    command.push(await timeProcess(item.args, item.stdin));
    if (other && !(run % 2)) others.push(await timeProcess(other.args, other.stdin));
  }
  const measured: Measured = { command: stats(command), bare: stats(bare) };
  if (other) {
    const difference = stats(command.map((time, run) => time - others[run])).median;
    measured.other = { times: stats(others), difference };
  }
  return measured;
}

const format = (value: Stats) =>
  `${value.min.toFixed(0)} / ${value.median.toFixed(0)} / ${value.max.toFixed(0)}`;

console.log(`Start-up, ${RUNS} alternating runs each (ms: min / median / max)\n`);
if (AGAINST) console.log(`other tree: ${AGAINST}\n`);
const otherColumns = AGAINST ? " other tree | this − other |" : "";
console.log(`| command | syn | bare deno | ratio | goal |${otherColumns}`);
console.log(`|---|---|---|---|---|${AGAINST ? "---|---|" : ""}`);
const verdicts: string[] = [];
try {
  for (const [index, item] of CASES.entries()) {
    const { command, bare, other } = await measure(item, OTHER_CASES?.[index]);
    const ratio = command.median / bare.median;
    const holds = ratio <= item.goal;
    const compared = other
      ? ` ${format(other.times)} | ${other.difference >= 0 ? "+" : ""}${
        other.difference.toFixed(1)
      } |`
      : "";
    console.log(
      `| ${item.name} | ${format(command)} | ${format(bare)} | ${
        ratio.toFixed(2)
      }× | ≤ ${item.goal}× ${holds ? "holds" : "MISSED"} |${compared}`,
    );
    verdicts.push(
      `${holds ? "holds " : "missed"}  ${item.name}: ${ratio.toFixed(2)}× (goal ≤ ${item.goal}×)`,
    );
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
console.log(`\n${verdicts.join("\n")}`);
