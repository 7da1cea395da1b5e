/**
 * The shell examples of the README and of every page in docs/, run as written: every ```sh
 * and ```console block runs with bash in a scratch folder of its own (also its `HOME`), with
 * `syn` the launcher `scripts/install.ts` writes into a temporary bin folder and no `deno` on
 * `PATH` (the set-up installs none). A `sh` block must exit 0 (it runs
 * under `set -e`); in a `console` block the `$ ` lines run and the lines after each are its
 * expected output (stdout and stderr together; `…` stands for any text). A block after
 * `<!-- readme-test: skip (reason) -->` is skipped with that reason printed; one after
 * `<!-- readme-test: needs chromium -->` (or `needs bubblewrap`) runs only where syn finds
 * that program, and elsewhere is skipped with the reason printed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium } from "../lib/preview/chromium.ts";
import { detectBubblewrap } from "../lib/tools/mod.ts";
import { childEnv } from "./fakes/child_env.ts";
import { runCommand } from "./fakes/cli_io.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

interface Example {
  line: number;
  kind: "sh" | "console";
  text: string;
  skip?: string;
  /** The program the block needs (`needs chromium`): it runs only where syn finds it. */
  needs?: string;
}

/** The README's `sh` and `console` blocks, with the marker just before (skip or needs). */
export function readmeExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  const lines = markdown.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(sh|console)\s*$/.exec(lines[index]);
    if (!open) continue;
    const end = lines.indexOf("```", index + 1);
    const before = lines.slice(0, index).reverse().find((line) => line.trim() !== "") ?? "";
    const skip = /^<!-- readme-test: skip \((.+)\) -->$/.exec(before.trim())?.[1];
    const needs = /^<!-- readme-test: needs (\S+) -->$/.exec(before.trim())?.[1];
    examples.push({
      line: index + 1,
      kind: open[1] as Example["kind"],
      text: lines.slice(index + 1, end).join("\n"),
      skip,
      needs,
    });
    index = end;
  }
  return examples;
}

/** A console block as commands (continuation lines joined) with their expected output. */
export function consoleSteps(text: string): { command: string; expected: string[] }[] {
  const steps: { command: string; expected: string[] }[] = [];
  let continuing = false;
  for (const line of text.split("\n")) {
    if (continuing) {
      steps[steps.length - 1].command += `\n${line}`;
    } else if (line.startsWith("$ ")) {
      steps.push({ command: line.slice(2), expected: [] });
    } else if (steps.length > 0) {
      steps[steps.length - 1].expected.push(line);
      continue;
    }
    continuing = line.endsWith("\\");
  }
  return steps;
}

const MARK = "@@readme-step@@";

/** One bash script for a console block: a marker line before each command, `$?` kept. */
function consoleScript(steps: { command: string }[]): string {
  return steps.map((step) => `__status=$?; echo ${MARK}; (exit $__status)\n${step.command}`)
    .join("\n") + "\n";
}

function matchesExpected(actual: string, expected: string[]): boolean {
  const pattern = expected.join("\n").trim().split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*");
  return new RegExp(`^${pattern}$`).test(actual.trim());
}

/** The pages whose examples run: the README, then every docs page. */
const PAGES = [
  "README.md",
  ...[...Deno.readDirSync(join(ROOT, "docs"))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort(),
];

/** `PATH` without any folder that holds a `deno`: what a user of the launcher has. */
function pathWithoutDeno(path: string): string {
  return path.split(":").filter((dir) => {
    try {
      return !Deno.statSync(join(dir, "deno")).isFile;
    } catch {
      return true;
    }
  }).join(":");
}

const bin = await Deno.makeTempDir({ prefix: "syn_readme_bin_" });
const PATH = `${bin}:${pathWithoutDeno(Deno.env.get("PATH") ?? "/usr/bin:/bin")}`;
/** `SYN_CHROMIUM` reaches the examples, so they use the Chromium this check found. */
const chromiumEnv: Record<string, string> = Deno.env.get("SYN_CHROMIUM")
  ? { SYN_CHROMIUM: Deno.env.get("SYN_CHROMIUM")! }
  : {};

/** For each program a block may need: why the block is skipped here, or undefined. */
const MISSING: Record<string, () => Promise<string | undefined>> = {
  chromium: () =>
    Promise.resolve(
      findChromium(chromiumEnv.SYN_CHROMIUM) ? undefined : "needs Chromium, and none was found",
    ),
  bubblewrap: async () =>
    (await detectBubblewrap(PATH)) ? undefined : "needs bubblewrap (bwrap), which cannot run here",
};

/** Why a block is skipped here: its skip reason, or a program it needs that is missing. */
async function skipReason(page: string, example: Example): Promise<string | undefined> {
  if (example.skip) return example.skip;
  if (!example.needs) return undefined;
  const missing = MISSING[example.needs];
  assert.ok(missing, `${page}:${example.line}: unknown 'needs ${example.needs}'`);
  return await missing();
}

async function runBlock(page: string, example: Example): Promise<void> {
  const scratch = await Deno.makeTempDir({ prefix: "syn_readme_" });
  try {
    const steps = example.kind === "console" ? consoleSteps(example.text) : [];
    const script = example.kind === "sh" ? `set -e\n${example.text}\n` : consoleScript(steps);
    const run = await runCommand(["bash", "-c", `exec 2>&1\n${script}`], [], {
      cwd: scratch,
      // The ready file out of the shared /tmp, so a server running elsewhere on the machine
      // does not add its `mcp:warn` line to the output a block shows.
      env: childEnv({
        PATH,
        HOME: scratch,
        MCP_READY_FILE: join(bin, "mcp.ready"),
        ...chromiumEnv,
      }),
    });
    const where = `${page}:${example.line}`;
    if (example.kind === "sh") {
      assert.equal(run.code, 0, `${where} exited ${run.code}:\n${run.stdout}`);
      return;
    }
    const outputs = run.stdout.split(`${MARK}\n`).slice(1);
    assert.equal(outputs.length, steps.length, `${where} stopped early:\n${run.stdout}`);
    steps.forEach((step, index) => {
      assert.ok(
        matchesExpected(outputs[index], step.expected),
        `${where}: $ ${step.command}\ngave:\n${outputs[index]}\nexpected:\n${
          step.expected.join("\n")
        }`,
      );
    });
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

Deno.test({
  name: "every shell example in the README and the docs runs as written in a scratch folder",
  async fn(context) {
    const install = await runCommand(
      [Deno.execPath(), "run", "-A", join(ROOT, "scripts/install.ts")],
      ["--bin", bin],
    );
    assert.equal(install.code, 0, install.stderr);
    try {
      for (const page of PAGES) {
        const examples = readmeExamples(await Deno.readTextFile(join(ROOT, page)));
        if (page === "README.md") assert.ok(examples.length > 5, "the README has shell examples");
        for (const example of examples) {
          const name = `${page}:${example.line} (${example.kind})`;
          const skip = await skipReason(page, example);
          if (skip) {
            console.log(`skipping ${name}: ${skip}`);
            continue;
          }
          await context.step(name, () => runBlock(page, example));
        }
      }
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});

/**
 * What no example may do, skipped ones included: call a `deno` the set-up never installs
 * (examples use `syn` or `npx -y deno@2.9.6 …`), or glue a redirection to a word
 * (`fs.list_dir>fs.read_text` writes a file; a chain is quoted).
 */
export function exampleProblems(markdown: string): string[] {
  const problems: string[] = [];
  const lines = markdown.split("\n");
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const open = /^```(\w*)\s*$/.exec(line);
    if (open && fence === undefined) {
      fence = open[1];
      return;
    }
    if (line.startsWith("```")) {
      fence = undefined;
      return;
    }
    if (fence === "json" && /"command"\s*:\s*"deno"/.test(line)) {
      problems.push(`${index + 1}: an MCP configuration runs a bare deno`);
    }
    if (fence !== "sh" && fence !== "console") return;
    const command = fence === "console" ? /^\$ (.*)$/.exec(line)?.[1] : line;
    if (command === undefined) return;
    const unquoted = command.replace(/'[^']*'|"[^"]*"/g, "''").replace(/#.*$/, "");
    if (/(^|[;&|(]\s*|\s)deno\s/.test(unquoted)) {
      problems.push(`${index + 1}: a bare deno: ${line.trim()}`);
    }
    if (/[\w.]>[\w.]/.test(unquoted)) {
      problems.push(`${index + 1}: a redirection glued to a word: ${line.trim()}`);
    }
  });
  return problems;
}

Deno.test("no example in the README or the docs calls a bare deno or redirects by accident", async () => {
  const problems: string[] = [];
  for (const page of PAGES) {
    const text = await Deno.readTextFile(join(ROOT, page));
    problems.push(...exampleProblems(text).map((problem) => `${page}:${problem}`));
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(
    exampleProblems(
      "```sh\ndeno run -A x.ts\nsyn synthesize run fs.a>fs.b\nsyn synthesize run 'fs.a>fs.b'\n```\n" +
        '```json\n{ "command": "deno" }\n```\n```sh\nnpx -y deno@2.9.6 task ok\n```\n',
    ),
    [
      "2: a bare deno: deno run -A x.ts",
      "3: a redirection glued to a word: syn synthesize run fs.a>fs.b",
      "7: an MCP configuration runs a bare deno",
    ],
  );
});

Deno.test("consoleSteps() splits commands, continuation lines and expected output", () => {
  assert.deepEqual(consoleSteps("$ echo a \\\n  b\na b\n$ echo $?\n0"), [
    { command: "echo a \\\n  b", expected: ["a b"] },
    { command: "echo $?", expected: ["0"] },
  ]);
  assert.equal(matchesExpected("{ x: 1, y: 2 }\n", ["{ … y: 2 }"]), true);
  assert.equal(matchesExpected("{ x: 1 }", ["{ y: 1 }"]), false);
});

Deno.test("readmeExamples() reads the skip and needs markers before a block", () => {
  const examples = readmeExamples(
    "<!-- readme-test: skip (a reason) -->\n\n```sh\na\n```\n" +
      "<!-- readme-test: needs chromium -->\n```console\n$ b\n```\n```sh\nc\n```\n",
  );
  assert.deepEqual(examples.map(({ skip, needs }) => ({ skip, needs })), [
    { skip: "a reason", needs: undefined },
    { skip: undefined, needs: "chromium" },
    { skip: undefined, needs: undefined },
  ]);
});
