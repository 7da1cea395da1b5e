/**
 * The README's shell examples, run as written: every ```sh and ```console block runs with
 * bash in a scratch folder of its own (also its `HOME`), with `syn` the launcher
 * `scripts/install.ts` writes into a temporary bin folder. A `sh` block must exit 0 (it runs
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

const markdown = await Deno.readTextFile(join(ROOT, "README.md"));
const bin = await Deno.makeTempDir({ prefix: "syn_readme_bin_" });
const PATH = `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
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
async function skipReason(example: Example): Promise<string | undefined> {
  if (example.skip) return example.skip;
  if (!example.needs) return undefined;
  const missing = MISSING[example.needs];
  assert.ok(missing, `README.md:${example.line}: unknown 'needs ${example.needs}'`);
  return await missing();
}

async function runBlock(example: Example): Promise<void> {
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
    const where = `README.md:${example.line}`;
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
  name: "every shell example in the README runs as written in a scratch folder",
  // The examples start servers and children whose ops outlive a single step's bookkeeping.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(context) {
    const install = await runCommand(
      [Deno.execPath(), "run", "-A", join(ROOT, "scripts/install.ts")],
      ["--bin", bin],
    );
    assert.equal(install.code, 0, install.stderr);
    try {
      const examples = readmeExamples(markdown);
      assert.ok(examples.length > 5, "the README has shell examples");
      for (const example of examples) {
        const name = `README.md:${example.line} (${example.kind})`;
        const skip = await skipReason(example);
        if (skip) {
          console.log(`skipping ${name}: ${skip}`);
          continue;
        }
        await context.step(name, () => runBlock(example));
      }
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
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
