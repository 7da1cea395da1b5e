import assert from "node:assert/strict";
import { runSyn } from "../../tests/fakes/cli_io.ts";
import { SANDBOX_FLAGS } from "./_sandbox_flags.ts";

Deno.test("every sandbox flag is in the help of syn tools and of syn mcp-serve", async () => {
  const tools = await runSyn(["tools", "--help"]);
  const serve = await runSyn(["mcp-serve", "--help"]);
  for (const flag of Object.keys(SANDBOX_FLAGS)) {
    assert.ok(tools.stdout.includes(`--${flag} `) || tools.stdout.includes(`--${flag}\n`), flag);
    assert.ok(serve.stdout.includes(`--${flag} `) || serve.stdout.includes(`--${flag}\n`), flag);
  }
});
