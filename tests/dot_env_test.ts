import assert from "node:assert/strict";
import { dotEnvStrayLines } from "../main.ts";
import { childEnv } from "./fakes/child_env.ts";
import { runCommand, SELF_COMMAND } from "./fakes/cli_io.ts";

Deno.test("dotEnvStrayLines() numbers the lines that are not NAME=value", () => {
  const text = [
    "# keys",
    "LABS_FAIL_FAST=0",
    "OPENAI_API_KEY sk-test", // 3: no '='
    "",
    'NOTE="two', // a quoted value that spans lines
    'lines"',
    "export MCP_PORT=7000",
    "= nameless", // 8
    "9LIVES=1", // 9: not a name
  ].join("\n");
  assert.deepEqual(dotEnvStrayLines(text), [3, 8, 9]);
  assert.deepEqual(dotEnvStrayLines("A=1\r\nB='x'\r\n"), []);
});

Deno.test("a .env line that is not NAME=value is warned about with its number", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_dot_env_" });
  try {
    await Deno.writeTextFile(`${dir}/.env`, "LABS_FAIL_FAST=1\nLABS_FAIL_FAST: 0\n");
    await Deno.writeTextFile(`${dir}/a.json`, "{}");
    const run = await runCommand(SELF_COMMAND, ["validate", "a.json"], {
      cwd: dir,
      env: childEnv({ HOME: dir }),
    });
    assert.match(run.stderr, /^syn: \.env line 2 is not NAME=value; it is ignored$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
