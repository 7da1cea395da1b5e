/**
 * Tool-sandbox benchmarks (printed, never asserted):
 *
 *   deno run -A scripts/bench_tools.ts [--runs 30]
 *
 * - once per process: the five baseline tools' argument validators made ready (goal
 *   ≤ 2 ms), measured in 9 fresh processes (it is paid once per process, so one sample
 *   would be one roll of the dice);
 * - cold: a new session's first `fs.read_text` — starting the sandbox worker (with its
 *   permission probe) plus the call (goal ≤ 30 ms);
 * - warm: further calls in the same session, beside a direct in-process read of the same
 *   file (goal: ≤ 1 ms overhead);
 * - shell.exec `echo` warm, with and without bubblewrap, beside spawning it directly.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "../tests/fakes/child_env.ts";
import { baselineRegistry, ToolSession } from "../lib/tools/mod.ts";

const runsFlag = Deno.args.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(Deno.args[runsFlag + 1]) : 30;

function stats(samples: number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p99: at(0.99) };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function row(name: string, samples: number[], goal = ""): void {
  const { median, p99 } = stats(samples);
  console.log(
    `${name.padEnd(46)} ${median.toFixed(3).padStart(9)} ms ${
      p99.toFixed(3).padStart(9)
    } ms  ${goal}`,
  );
}

if (Deno.args.includes("--validators-once")) {
  const start = performance.now();
  await baselineRegistry();
  console.log((performance.now() - start).toFixed(3));
  Deno.exit(0);
}

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn-bench-tools-" }));
const file = join(root, "note.txt");
await Deno.writeTextFile(file, "x".repeat(2000));
const read = { id: "r", tool: "fs.read_text", args: { path: "note.txt" } };

/** The one-time cost, each sample in a fresh process of its own. */
async function validatorsReady(samples: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fileURLToPath(import.meta.url), "--validators-once"],
      env: childEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    if (code !== 0) throw new Error(`--validators-once: ${new TextDecoder().decode(stderr)}`);
    times.push(Number(new TextDecoder().decode(stdout).trim()));
  }
  return times;
}

const ready = await validatorsReady(9);
const registry = await baselineRegistry();

const cold: number[] = [];
for (let i = 0; i < runs; i++) {
  const session = await ToolSession.open({ root, registry, bubblewrap: "off" });
  cold.push(await time(() => session.call(read)));
  session.close();
}

// shell.exec on the argv checks alone needs the opt-in (`--shell-without-bubblewrap`).
const session = await ToolSession.open({
  root,
  registry,
  bubblewrap: "off",
  shellWithoutBubblewrap: true,
});
await session.call(read);
const warm: number[] = [];
const direct: number[] = [];
for (let i = 0; i < runs * 20; i++) {
  warm.push(await time(() => session.call(read)));
  direct.push(await time(() => Deno.readTextFile(file)));
}
const echo = { id: "e", tool: "shell.exec", args: { cmd: "echo hi" } };
const shellArgv: number[] = [];
for (let i = 0; i < runs; i++) shellArgv.push(await time(() => session.call(echo)));
session.close();

const bwrapSession = await ToolSession.open({ root, registry, bubblewrap: "auto" });
const shellBwrap: number[] = [];
if (await bwrapSession.usesBubblewrap()) {
  await bwrapSession.call(echo);
  for (let i = 0; i < runs; i++) shellBwrap.push(await time(() => bwrapSession.call(echo)));
}
bwrapSession.close();
const spawnDirect: number[] = [];
for (let i = 0; i < runs; i++) {
  spawnDirect.push(await time(() => new Deno.Command("/bin/echo", { args: ["hi"] }).output()));
}
await Deno.remove(root, { recursive: true });

console.log(`syn tools sandbox, ${runs} cold runs, ${runs * 20} warm calls`);
console.log(`${"".padEnd(46)} ${"median".padStart(12)} ${"p99".padStart(12)}`);
{
  const sorted = [...ready].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${"once per process: 5 argument validators ready".padEnd(46)} ${
      median.toFixed(3).padStart(9)
    } ms  (9 fresh processes: min ${sorted[0].toFixed(3)}, max ${
      sorted[sorted.length - 1].toFixed(3)
    })  goal ≤ 2 ms (median) ${median <= 2 ? "holds" : "MISSED"}`,
  );
}
row("cold: new sandbox + first fs.read_text", cold, "goal ≤ 30 ms");
row("warm: fs.read_text in the sandbox", warm);
row("direct: Deno.readTextFile in-process", direct);
const overhead = stats(warm).median - stats(direct).median;
console.log(
  `${"warm overhead (median)".padEnd(46)} ${overhead.toFixed(3).padStart(9)} ms  goal ≤ 1 ms`,
);
row("warm: shell.exec echo (argv checks only)", shellArgv);
if (shellBwrap.length) row("warm: shell.exec echo (bubblewrap)", shellBwrap);
else console.log("shell.exec in bubblewrap: skipped (bubblewrap is not available here)");
row("direct: spawn /bin/echo in-process", spawnDirect);
