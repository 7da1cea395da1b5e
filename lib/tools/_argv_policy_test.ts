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

/**
 * Every word GNU tail's `parse_obsolete_option` reads as "follow": a sign, any count, an
 * optional unit (b, c, l), then `f` — `-f`, `-cf`, `-5cf`, `+5f`, `+bf`, ….
 */
function obsoleteFollowWords(): string[] {
  const words: string[] = [];
  for (const sign of ["-", "+"]) {
    for (const count of ["", "0", "5", "10"]) {
      for (const unit of ["", "b", "c", "l"]) words.push(`${sign}${count}${unit}f`);
    }
  }
  return words;
}

Deno.test("checkArguments() refuses every form GNU tail parses as follow", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(`${root}/a.txt`, "a\n");
  const forms: string[][] = [];
  for (const word of obsoleteFollowWords()) {
    forms.push([word], [word, "a.txt"], [word, "--", "a.txt"], ["a.txt", word]);
  }
  forms.push(
    ["-f", "a.txt"],
    ["-F", "a.txt"],
    ["-n5", "-f", "a.txt"],
    ["-n", "5", "-f", "a.txt"],
    ["-c", "5", "-F", "a.txt"],
    ["-qf", "a.txt"],
    ["-vF", "a.txt"],
    ["-zqf", "a.txt"],
    ["a.txt", "-f"],
    ["--follow", "a.txt"],
    ["--follow=name", "a.txt"],
    ["--follow=descriptor", "a.txt"],
    ["--fo", "a.txt"],
    ["--retry", "a.txt"],
    ["--pid=1", "a.txt"],
  );
  for (const args of forms) {
    assert.equal(
      await outcomeCode(checkArguments("tail", args, root)),
      "not_allowed",
      args.join(" "),
    );
  }
  for (const args of [["-n", "1", "a.txt"], ["-5", "a.txt"], ["-c5", "a.txt"], ["-n+1", "a.txt"]]) {
    assert.equal(await outcomeCode(checkArguments("tail", args, root)), "ok", args.join(" "));
  }
  await Deno.remove(root, { recursive: true });
});
