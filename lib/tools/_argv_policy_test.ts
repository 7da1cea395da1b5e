import assert from "node:assert/strict";
import { checkArguments, DEFAULT_SHELL_ALLOW, resolveProgram } from "./_argv_policy.ts";
import { ToolFailure } from "./tool_failure.ts";

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    assert.ok(error instanceof ToolFailure, String(error));
    return error.code;
  }
}

Deno.test("resolveProgram() finds allowlisted programs in the fixed PATH only", async () => {
  assert.match(await resolveProgram("ls", DEFAULT_SHELL_ALLOW), /^\/(usr\/)?(local\/)?bin\/ls$/);
  assert.equal(await code(resolveProgram("/bin/ls", DEFAULT_SHELL_ALLOW)), "not_allowed");
  assert.equal(await code(resolveProgram("rm", DEFAULT_SHELL_ALLOW)), "not_allowed");
  assert.equal(await code(resolveProgram("bash", [...DEFAULT_SHELL_ALLOW, "bash"])), "not_allowed");
  assert.equal(await code(resolveProgram("no-such-program-x", ["no-such-program-x"])), "not_found");
});

Deno.test("checkArguments() refuses per-program escape flags, including inside clusters", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  assert.equal(await code(checkArguments("grep", ["-nr", "x", "."], root)), "not_allowed");
  assert.equal(await code(checkArguments("grep", ["--recursive", "x"], root)), "not_allowed");
  assert.equal(await code(checkArguments("grep", ["--recur", "x"], root)), "not_allowed");
  assert.equal(await code(checkArguments("sort", ["--compress-program=sh"], root)), "not_allowed");
  assert.equal(await code(checkArguments("cat", ["--files0-from=x"], root)), "not_allowed");
  assert.equal(await code(checkArguments("tail", ["-F", "x"], root)), "not_allowed");
  assert.equal(await code(checkArguments("cat", ["--", "../x"], root)), "path_escape");
  assert.equal(await code(checkArguments("ls", ["--color=/etc/passwd"], root)), "path_escape");
  assert.equal(await code(checkArguments("grep", ["-n", "x", "a.txt"], root)), "ok");
  assert.equal(await code(checkArguments("head", ["-n5", "-"], root)), "ok");
  await Deno.remove(root, { recursive: true });
});
