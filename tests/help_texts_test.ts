/**
 * What `syn <command> --help` teaches holds for a user of the launcher: no line runs past the
 * margin, no help names a file only the checkout has (`schemas/examples/…`, `.env.sample`, a
 * docs page other than as "in the repository"), and the examples of the commands that finish
 * on their own run as written, in order, in an empty folder.
 */
import assert from "node:assert/strict";
import { findChromium } from "../lib/preview/chromium.ts";
import { COMMANDS } from "../lib/cli/commands.ts";
import { childEnv } from "./fakes/child_env.ts";
import { runCommand, SELF_COMMAND } from "./fakes/cli_io.ts";

/** The widest a help line may be: deno fmt's line width, which the sources keep too. */
const MARGIN = 100;

async function helpOf(name: string): Promise<string> {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  assert.ok(command, name);
  return (await command.load()).help;
}

/** The lines of a help's `Example:`/`Examples:` block, continuation lines joined. */
export function exampleLines(help: string): string[] {
  const lines = help.split("\n");
  const start = lines.findIndex((line) => /^Examples?:$/.test(line));
  if (start === -1) return [];
  const examples: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("  ")) break;
    const previous = examples.at(-1);
    if (previous?.endsWith("\\")) examples[examples.length - 1] = `${previous}\n${line}`;
    else examples.push(line.trim());
  }
  return examples;
}

Deno.test("every help text keeps to the margin", async () => {
  for (const command of COMMANDS) {
    const help = await helpOf(command.name);
    help.split("\n").forEach((line, index) => {
      assert.ok(
        line.length <= MARGIN,
        `syn ${command.name} --help, line ${index + 1} is ${line.length} columns:\n${line}`,
      );
    });
  }
});

Deno.test("no help text points at a file only the checkout has", async () => {
  for (const command of COMMANDS) {
    const help = await helpOf(command.name);
    const where = `syn ${command.name} --help`;
    for (const example of exampleLines(help)) {
      assert.doesNotMatch(example, /schemas\/examples\//, `${where}: ${example}`);
    }
    assert.doesNotMatch(help, /\.env\.sample/, where);
    assert.doesNotMatch(help, /\.\.\/shared\/|(^|\s)(scripts|tests)\//m, where);
    for (const match of help.matchAll(/docs\/\S+\.md/g)) {
      const after = help.slice(match.index + match[0].length).replace(/\s+/g, " ");
      assert.match(after, /^ in the repository/, `${where}: ${match[0]}`);
    }
  }
});

Deno.test("mcp-serve --help states the token length the server enforces", async () => {
  const { MIN_SERVER_TOKEN_CHARS } = await import("../lib/core/server_edge.ts");
  assert.match(await helpOf("mcp-serve"), new RegExp(`\\(${MIN_SERVER_TOKEN_CHARS}\\+ printable`));
});

/** Examples left out here: they serve until stopped, open a browser or need a key or the network. */
const NOT_RUN = /--open|--preview|LIVE=1|--http|--tcp|SYN_SCHEMAS_DIR=\.\.|http\.get/;

Deno.test({
  name: "the help examples of the one-shot commands run as written in an empty folder",
  async fn() {
    const names = [
      "generate",
      "validate",
      "diff",
      "critique",
      "patch",
      "schemas",
      "examples",
      "preview",
    ];
    const scratch = await Deno.makeTempDir({ prefix: "syn_help_examples_" });
    const bin = await Deno.makeTempDir({ prefix: "syn_help_bin_" });
    try {
      const words = SELF_COMMAND.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");
      await Deno.writeTextFile(`${bin}/syn`, `#!/bin/sh\nexec ${words} "$@"\n`, { mode: 0o755 });
      await Deno.chmod(`${bin}/syn`, 0o755);
      const chromium = findChromium(Deno.env.get("SYN_CHROMIUM"));
      for (const name of names) {
        for (const example of exampleLines(await helpOf(name))) {
          if (NOT_RUN.test(example) || (/--png/.test(example) && !chromium)) continue;
          const run = await runCommand(["bash", "-c", example], [], {
            cwd: scratch,
            env: childEnv({
              PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
              HOME: scratch,
              ...(chromium ? { SYN_CHROMIUM: chromium } : {}),
            }),
          });
          const where = `syn ${name} --help: ${example}`;
          // diff exits 1 when the documents differ; every other example succeeds.
          assert.ok(
            run.code === 0 || (name === "diff" && run.code === 1),
            `${where}\n${run.stderr}`,
          );
          assert.doesNotMatch(run.stderr, /not found|no such|cannot read|not a file/i, where);
        }
      }
    } finally {
      await Deno.remove(scratch, { recursive: true });
      await Deno.remove(bin, { recursive: true });
    }
  },
});
