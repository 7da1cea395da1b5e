import { outcomeCode } from "../../tests/fakes/rejection.ts";
import assert from "node:assert/strict";
import { checkArguments, resolveProgram } from "./_argv_policy.ts";
import { OPTION_TABLES } from "./_option_tables.ts";
import {
  DEFAULT_SHELL_ALLOW,
  isRefusedProgramName,
  PROGRAM_RUNNING_OPTIONS,
} from "./_shell_policy.ts";

const ARGV_ONLY = { bubblewrap: false };

Deno.test("resolveProgram() finds allowlisted programs in the fixed PATH only", async () => {
  assert.match(
    await resolveProgram("ls", DEFAULT_SHELL_ALLOW, ARGV_ONLY),
    /^\/(usr\/)?(local\/)?bin\/ls$/,
  );
  const outcome = (name: string, allow = DEFAULT_SHELL_ALLOW) =>
    outcomeCode(resolveProgram(name, allow, ARGV_ONLY));
  assert.equal(await outcome("/bin/ls"), "not_allowed");
  assert.equal(await outcome("rm"), "not_allowed");
  assert.equal(await outcome("bash", [...DEFAULT_SHELL_ALLOW, "bash"]), "not_allowed");
  assert.equal(await outcome("no-such-program-x", ["no-such-program-x"]), "not_found");
});

Deno.test("isRefusedProgramName() refuses families by name, version and variant suffix", () => {
  const refused = [
    "python3.11",
    "python3.11-dbg",
    "Python3",
    "idle-python3.11",
    "pydoc3.11",
    "perl5.36.0",
    "perl5.36-x86_64-linux-gnu",
    "tclsh8.6",
    "wish8.6",
    "vim.basic",
    "vim.tiny",
    "lua5.4",
    "ruby3.1",
    "php8.2",
    "node18",
    "gcc-12",
    "x86_64-linux-gnu-gcc-12",
    "x86_64-linux-gnu-g++-12",
    "clang++-14",
    "ld.gold",
    "taskset",
    "setarch",
    "linux64",
    "x86_64",
    "i386",
    "chrt",
    "ionice",
    "prlimit",
    "setpriv",
    "runcon",
    "systemd-run",
    "xdg-open",
    "sensible-editor",
    "busybox",
    "m4",
  ];
  for (const name of refused) assert.equal(isRefusedProgramName(name), true, name);
  const harmless = [
    ...DEFAULT_SHELL_ALLOW,
    ...["stat", "sleep", "printenv", "sha256sum", "md5sum", "base64", "nl", "tac", "rev", "od"],
    ...["file", "du", "diff", "cmp", "comm", "paste", "fold", "seq", "realpath", "basename"],
  ];
  for (const name of harmless) assert.equal(isRefusedProgramName(name), false, name);
});

Deno.test("resolveProgram() refuses by what a program is: a hard link, a script, a symlink", async () => {
  const folder = await Deno.realPath(await Deno.makeTempDir());
  const options = { bubblewrap: true, searchPath: folder };
  try {
    await Deno.copyFile("/bin/true", `${folder}/python3`);
    await Deno.link(`${folder}/python3`, `${folder}/calc`);
    await Deno.symlink(`${folder}/python3`, `${folder}/viewer`);
    await Deno.writeTextFile(`${folder}/report`, "#!/bin/sh\necho hi\n", { mode: 0o755 });
    await Deno.copyFile("/bin/true", `${folder}/plain`);
    await Deno.chmod(`${folder}/plain`, 0o755);
    const outcome = (name: string, bubblewrap = true) =>
      outcomeCode(resolveProgram(name, [name], { ...options, bubblewrap }));
    assert.equal(await outcome("calc"), "not_allowed");
    assert.equal(await outcome("viewer"), "not_allowed");
    assert.equal(await outcome("report"), "not_allowed");
    assert.equal(await outcome("plain"), "ok");
    // Without bubblewrap a program syn has no option table for cannot run at all.
    assert.equal(await outcome("plain", false), "not_allowed");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("checkArguments() refuses options that run a program, with a table or without", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  for (const option of PROGRAM_RUNNING_OPTIONS) {
    for (const program of ["split", "tar", "diff3", "sort", "no-table-program"]) {
      assert.equal(
        await outcomeCode(checkArguments(program, [`--${option}=x`], root)),
        "not_allowed",
        `${program} --${option}`,
      );
    }
  }
  for (const word of ["--filt=x", "--fi", "--to-c=x", "--use-compress=x", "--diff-p=x"]) {
    assert.equal(await outcomeCode(checkArguments("split", [word], root)), "not_allowed", word);
  }
  for (const [program, table] of Object.entries(OPTION_TABLES)) {
    for (const entry of table.long) {
      const name = entry.replace(/=+$/, "");
      if (!PROGRAM_RUNNING_OPTIONS.includes(name)) continue;
      assert.equal(
        await outcomeCode(checkArguments(program, [`--${name}=x`], root)),
        "not_allowed",
        `${program} --${name}`,
      );
    }
  }
  await Deno.remove(root, { recursive: true });
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
