/**
 * The benchmarks that read the reference data in `../shared` still run on a user's clone,
 * where there is none: a copy of the tracked files in a folder with nothing beside it runs
 * each of them (briefly) and gets numbers and a note, never a NotFound crash.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { childEnv } from "./fakes/child_env.ts";
import { runCommand } from "./fakes/cli_io.ts";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The tracked files of this checkout, or undefined where git cannot list them. */
async function trackedFiles(): Promise<string[] | undefined> {
  try {
    const listed = await new Deno.Command("git", {
      args: ["ls-files", "-z"],
      cwd: root,
      clearEnv: true,
      env: childEnv(),
      stderr: "piped",
    }).output();
    if (!listed.success) return undefined;
    return new TextDecoder().decode(listed.stdout).split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
}

const FILES = await trackedFiles();
if (!FILES) console.warn("skipping the clone-without-shared bench test: git cannot list the files");

Deno.test({
  name: "benchmarks that read ../shared run on a clone without it",
  ignore: !FILES,
  async fn() {
    const outer = await Deno.makeTempDir({ prefix: "syn-clone-" });
    const clone = join(outer, "repo");
    try {
      for (const file of FILES!) {
        await Deno.mkdir(join(clone, dirname(file)), { recursive: true });
        await Deno.copyFile(join(root, file), join(clone, file));
      }
      const deno = [Deno.execPath()];
      const runs: [string[], RegExp][] = [
        [
          ["run", "-A", "scripts/bench_validate.ts", "--runs", "1"],
          /canonical-baseline\s+\d+\s+\d+/,
        ],
        [["run", "-A", "scripts/bench_mcp.ts", "--requests", "20"], /sequential stdio \| \d+/],
        [
          ["bench", "-A", "lib/patch/diff_bench.ts"],
          /generated asset \(\.\.\/shared not present\)/,
        ],
      ];
      for (const [args, numbers] of runs) {
        const result = await runCommand(deno, args, { cwd: clone });
        const output = result.stdout + result.stderr;
        assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
        assert.match(output, numbers, args.join(" "));
        assert.doesNotMatch(output, /NotFound/, args.join(" "));
      }
    } finally {
      await Deno.remove(outer, { recursive: true });
    }
  },
});
