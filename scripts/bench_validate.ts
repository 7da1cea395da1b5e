/**
 * Validation benchmarks (printed, never asserted):
 *
 *   deno run -A scripts/bench_validate.ts [--runs 15]
 *
 * - in-process validations/s of conformance SynestheticAsset_Example1 and _ExampleDS
 *   (goals: ≥ 50,000/s and ≥ 10,000/s) with the embedded validators, with ajv compiled
 *   at run time (a SYN_SCHEMAS_DIR set), and for an invalid document (error path);
 * - median wall time of a cold `deno run -A main.ts validate <example>` (goal ≤ 150 ms).
 */
import { fileURLToPath } from "node:url";
import { loadSchemaStore, type SchemaStore } from "../lib/schema/mod.ts";
import { CONFORMANCE_EXAMPLES, sharedPath } from "../tests/fakes/shared.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const examples = sharedPath(CONFORMANCE_EXAMPLES);
const runsFlag = Deno.args.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(Deno.args[runsFlag + 1]) : 15;

function readJson(path: string): unknown | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}

function throughput(store: SchemaStore, document: unknown): number {
  // Warm up the JIT for 300 ms first: the first document measured would otherwise pay
  // for optimizing the shared code paths.
  const warm = performance.now() + 300;
  while (performance.now() < warm) store.validate(document, "synesthetic-asset");
  const deadline = performance.now() + 1000;
  let count = 0;
  const start = performance.now();
  while (performance.now() < deadline) {
    for (let i = 0; i < 500; i++) store.validate(document, "synesthetic-asset");
    count += 500;
  }
  return count / ((performance.now() - start) / 1000);
}

const embedded = await loadSchemaStore();
const compiled = await loadSchemaStore({ schemasDir: `${root}schemas` });
const documents: [string, unknown][] = [];
for (const name of ["SynestheticAsset_Example1", "SynestheticAsset_ExampleDS"]) {
  const document = readJson(`${examples}/${name}.json`);
  if (document) documents.push([name, document]);
}
const conformanceFound = documents.length > 0;
if (!conformanceFound) {
  console.warn("conformance examples not found beside the repository; using canonical-baseline");
}
const baseline = embedded.getExample("canonical-baseline.json")!.example as Record<string, unknown>;
documents.push(["canonical-baseline", baseline]);
const invalid = structuredClone(baseline) as { shader: Record<string, unknown>; name: unknown };
delete invalid.shader.fragment_shader;
invalid.name = 5;
documents.push(["canonical-baseline, 2 errors", invalid]);

console.log("in-process validation (validations/s)");
console.log("document                          bytes    embedded    compiled");
for (const [name, document] of documents) {
  const bytes = JSON.stringify(document).length;
  const a = throughput(embedded, document);
  const b = throughput(compiled, document);
  console.log(
    `${name.padEnd(32)} ${String(bytes).padStart(6)} ${a.toFixed(0).padStart(11)} ${
      b.toFixed(0).padStart(11)
    }`,
  );
}

const target = conformanceFound
  ? `${examples}/SynestheticAsset_Example1.json`
  : `${root}schemas/examples/canonical-baseline.json`;
const times: number[] = [];
for (let i = 0; i < runs + 1; i++) {
  const start = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}main.ts`, "validate", target],
    stdout: "null",
    stderr: "null",
  }).output();
  const elapsed = performance.now() - start;
  if (result.code !== 0) throw new Error(`validate exited ${result.code}`);
  if (i > 0) times.push(elapsed); // the first run may fill caches
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(
  `\ncold 'syn validate' (deno run -A main.ts validate …), ${runs} runs: median ${
    median.toFixed(1)
  } ms, min ${times[0].toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
);
