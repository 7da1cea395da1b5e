/**
 * Benchmarks of `syn generate` (prints a table; never asserts):
 * 1. a single deterministic `syn generate` as a fresh process, including its own
 *    validator child (`mcp-serve --stdio`), wall time median over the runs;
 * 2. a deterministic batch with `--concurrency 4`: assets per second including
 *    validation through the service, atomic asset writes and JSONL logging.
 *
 * Goals (Labs issue): single ≤ 400 ms median; batch ≥ 200 assets/s.
 *
 *   deno run -A scripts/bench_generate.ts [--runs 15] [--batch 400]
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, batch: { type: "string", default: "400" } },
});
const runs = Number(values.runs);
const batchSize = Number(values.batch);
const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const work = await Deno.makeTempDir({ prefix: "syn_bench_generate_" });
const env = { NO_COLOR: "1", MCP_READY_FILE: `${work}/mcp.ready` };

async function syn(args: string[]): Promise<{ code: number; ms: number; stdout: string }> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, ...args],
    cwd: work,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    ms: performance.now() - started,
    stdout: new TextDecoder().decode(output.stdout),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

try {
  await syn(["generate", "warm the module cache"]);
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const result = await syn([
      "generate",
      `a pulsing blue circle ${index}`,
      "--seed",
      String(index),
    ]);
    if (result.code !== 0) throw new Error(`syn generate failed: ${result.stdout}`);
    times.push(result.ms);
  }
  const prompts = Array.from(
    { length: batchSize },
    (_, index) => `prompt ${index}: a calm blue ocean at dusk`,
  );
  await Deno.writeTextFile(`${work}/prompts.txt`, prompts.join("\n"));
  const batch = await syn(["generate", "--batch", "prompts.txt", "--concurrency", "4"]);
  if (batch.code !== 0) throw new Error(`batch failed: ${batch.stdout.slice(0, 500)}`);
  const report = JSON.parse(batch.stdout);
  const rows = [
    [
      "single syn generate (process + validator child), median",
      `${median(times).toFixed(0)} ms`,
      "≤ 400 ms",
    ],
    [
      "single syn generate, min / max",
      `${Math.min(...times).toFixed(0)} / ${Math.max(...times).toFixed(0)} ms`,
      "",
    ],
    [
      `batch of ${batchSize}, concurrency 4, in-run rate`,
      `${report.summary.assets_per_s} assets/s`,
      "≥ 200 assets/s",
    ],
    [
      `batch of ${batchSize}, whole process wall`,
      `${(batchSize / (batch.ms / 1000)).toFixed(0)} assets/s (${batch.ms.toFixed(0)} ms)`,
      "",
    ],
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  console.log(`${"benchmark".padEnd(width)}  ${"result".padEnd(28)}  goal`);
  for (const [name, result, goal] of rows) {
    console.log(`${name.padEnd(width)}  ${result.padEnd(28)}  ${goal}`);
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
