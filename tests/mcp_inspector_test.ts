/**
 * The MCP Inspector check (`scripts/check_mcp_inspector.ts`) as a test, with the Deno cache
 * named by `DENO_DIR` and `HOME` on an empty folder: the server the Inspector starts must
 * find its npm packages in that cache, not download them into `~/.cache/deno`. Skips, saying
 * why, when `npx` is missing or the Inspector cannot be installed from npm.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childEnv, denoDir } from "./fakes/child_env.ts";
import { runCommand } from "./fakes/cli_io.ts";

const SCRIPT = fileURLToPath(new URL("../scripts/check_mcp_inspector.ts", import.meta.url));

async function hasNpx(): Promise<boolean> {
  try {
    const probe = await new Deno.Command("npx", {
      args: ["--version"],
      clearEnv: true,
      env: childEnv(),
      stdout: "null",
      stderr: "null",
    }).output();
    return probe.success;
  } catch {
    return false;
  }
}

const npx = await hasNpx();
if (!npx) console.warn("skipping the MCP Inspector test: npx is not on PATH");

Deno.test({
  name: "the MCP Inspector CLI passes every check against mcp-serve --stdio with a custom DENO_DIR",
  ignore: !npx,
  async fn(context) {
    const home = await Deno.makeTempDir({ prefix: "syn_inspector_home_" });
    try {
      const npmCache = Deno.env.get("npm_config_cache") ??
        `${Deno.env.get("HOME") ?? home}/.npm`;
      const run = await runCommand([Deno.execPath(), "run", "-A", SCRIPT], [], {
        env: { HOME: home, DENO_DIR: denoDir(), npm_config_cache: npmCache },
      });
      if (run.code === 2) {
        console.warn(`skipping the MCP Inspector test: ${run.stderr.trim()}`);
        return;
      }
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /^8 passed, 0 failed$/m);
      await context.step("no colour codes reach the output", () => {
        assert.equal((run.stdout + run.stderr).includes("\x1b["), false);
      });
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
