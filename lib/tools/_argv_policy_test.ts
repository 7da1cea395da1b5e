import { outcomeCode } from "../../tests/fakes/rejection.ts";
import assert from "node:assert/strict";
import { checkArguments, resolveProgram } from "./_argv_policy.ts";
import { DEFAULT_SHELL_ALLOW } from "./_shell_policy.ts";

Deno.test("resolveProgram() finds allowlisted programs in the fixed PATH only", async () => {
  assert.match(await resolveProgram("ls", DEFAULT_SHELL_ALLOW), /^\/(usr\/)?(local\/)?bin\/ls$/);
  assert.equal(await outcomeCode(resolveProgram("/bin/ls", DEFAULT_SHELL_ALLOW)), "not_allowed");
  assert.equal(await outcomeCode(resolveProgram("rm", DEFAULT_SHELL_ALLOW)), "not_allowed");
  assert.equal(
    await outcomeCode(resolveProgram("bash", [...DEFAULT_SHELL_ALLOW, "bash"])),
    "not_allowed",
  );
  assert.equal(
    await outcomeCode(resolveProgram("no-such-program-x", ["no-such-program-x"])),
    "not_found",
  );
});

Deno.test("checkArguments() refuses per-program escape flags, including inside clusters", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  assert.equal(await outcomeCode(checkArguments("grep", ["-nr", "x", "."], root)), "not_allowed");
  assert.equal(
    await outcomeCode(checkArguments("grep", ["--recursive", "x"], root)),
    "not_allowed",
  );
  assert.equal(await outcomeCode(checkArguments("grep", ["--recur", "x"], root)), "not_allowed");
  assert.equal(
    await outcomeCode(checkArguments("sort", ["--compress-program=sh"], root)),
    "not_allowed",
  );
  assert.equal(await outcomeCode(checkArguments("cat", ["--files0-from=x"], root)), "not_allowed");
  assert.equal(await outcomeCode(checkArguments("tail", ["-F", "x"], root)), "not_allowed");
  assert.equal(await outcomeCode(checkArguments("cat", ["--", "../x"], root)), "path_escape");
  assert.equal(
    await outcomeCode(checkArguments("ls", ["--color=/etc/passwd"], root)),
    "path_escape",
  );
  assert.equal(await outcomeCode(checkArguments("grep", ["-n", "x", "a.txt"], root)), "ok");
  assert.equal(await outcomeCode(checkArguments("head", ["-n5", "-"], root)), "ok");
  await Deno.remove(root, { recursive: true });
});
