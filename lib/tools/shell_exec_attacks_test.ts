/**
 * Attacks on `shell.exec` through the whole tool layer, each run with bubblewrap (where it
 * works here) and without: every case asserts the refusal, that the sentinel outside the
 * root never appears, and that nothing outside the root changed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolSession, type ToolSessionOptions } from "./mod.ts";
import { sandboxFixture, SENTINEL, shellVariants } from "../../tests/fakes/sandbox_fixture.ts";

const VARIANTS = await shellVariants();

/** [case, cmd, expected code]. `{base}` and `{root}` are replaced by the fixture's paths. */
const REFUSED: [string, string, string][] = [
  ["chaining with ;", "cat hello.txt; cat ../secret.txt", "not_allowed"],
  ["chaining with &&", "cat hello.txt && cat ../secret.txt", "not_allowed"],
  ["chaining with ||", "cat nope || cat ../secret.txt", "not_allowed"],
  ["a pipe", "cat hello.txt | cat", "not_allowed"],
  ["background &", "cat ../secret.txt &", "not_allowed"],
  ["command substitution $()", "echo $(cat ../secret.txt)", "not_allowed"],
  ["backticks", "echo `cat ../secret.txt`", "not_allowed"],
  ["a variable", "echo ${HOME}", "not_allowed"],
  ["a variable inside double quotes", 'echo "$SENTINEL_VAR"', "not_allowed"],
  ["output redirection", "echo pwned > ../created-by-attack.txt", "not_allowed"],
  ["input redirection", "cat < ../secret.txt", "not_allowed"],
  ["a glob", "cat ../*.txt", "not_allowed"],
  ["tilde expansion", "cat ~/.bashrc", "not_allowed"],
  ["a newline", "echo hi\ncat ../secret.txt", "not_allowed"],
  ["a NUL byte", "cat hello.txt\u0000../secret.txt", "not_allowed"],
  ["sh -c", "sh -c 'cat ../secret.txt'", "not_allowed"],
  ["bash", "bash -c id", "not_allowed"],
  ["python3 -c", "python3 -c 'print(open(\"../secret.txt\").read())'", "not_allowed"],
  ["env", "env cat ../secret.txt", "not_allowed"],
  ["xargs", "xargs cat", "not_allowed"],
  ["find -exec", "find . -exec cat {base}/secret.txt ;", "not_allowed"],
  ["a program by absolute path", "/bin/cat {base}/secret.txt", "not_allowed"],
  ["a program not on the allowlist", "rm hello.txt", "not_allowed"],
  ["cat through ..", "cat ../secret.txt", "path_escape"],
  ["cat an absolute path outside", "cat {base}/secret.txt", "path_escape"],
  ["cat /etc/passwd", "cat /etc/passwd", "path_escape"],
  ["cat /proc/self/environ", "cat /proc/self/environ", "path_escape"],
  ["cat a symlink to a file outside", "cat link-out.txt", "path_escape"],
  ["cat through a symlinked folder", "cat dir-out/secret.txt", "path_escape"],
  ["ls a symlinked folder outside", "ls dir-out", "path_escape"],
  ["head of the sibling prefix folder", "head {root}-evil/secret.txt", "path_escape"],
  ["a path in an --option=value", "wc --files0-from=../secret.txt", "not_allowed"],
  ["grep -r following a symlinked folder", "grep -r SENTINEL .", "not_allowed"],
  ["grep -R", "grep -R SENTINEL .", "not_allowed"],
  ["grep -f reading a pattern file", "grep -f ../secret.txt hello.txt", "not_allowed"],
  ["sort --files0-from", "sort --files0-from=list", "not_allowed"],
  ["sort --compress-program", "sort --compress-program=sh hello.txt", "not_allowed"],
  ["sort -o writing a file", "sort -o ../created-by-attack.txt hello.txt", "not_allowed"],
  ["tail -f that never ends", "tail -f hello.txt", "not_allowed"],
  ["date -f reading a file", "date -f ../secret.txt", "not_allowed"],
  ["ls -L dereferencing links", "ls -L dir-out", "not_allowed"],
  ["a variable assignment prefix", "LD_PRELOAD=/tmp/x.so cat hello.txt", "not_allowed"],
  ["a very long command", `echo ${"a ".repeat(5000)}`, "invalid_args"],
];

for (const variant of VARIANTS) {
  for (const [name, template, code] of REFUSED) {
    Deno.test({
      name: `shell attack is refused (${variant.name}): ${name}`,
      ignore: variant.ignore,
      async fn() {
        await using fixture = await sandboxFixture();
        const before = await fixture.outsideSnapshot();
        using session = await ToolSession.open({
          root: fixture.root,
          bubblewrap: variant.bubblewrap,
          shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
        });
        const cmd = template.replaceAll("{base}", fixture.base).replaceAll("{root}", fixture.root);
        const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd } });
        assert.equal(result.ok, false, JSON.stringify(result));
        assert.equal(result.error?.code, code, JSON.stringify(result));
        assert.ok(!JSON.stringify(result).includes(SENTINEL), "the sentinel leaked");
        assert.equal(await fixture.outsideSnapshot(), before, "something outside the root changed");
      },
    });
  }

  Deno.test({
    name: `shell: interpreters stay refused when added to the allowlist (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      using session = await ToolSession.open({
        root: fixture.root,
        bubblewrap: variant.bubblewrap,
        shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
        shellAllow: ["bash", "sh", "python3", "env", "xargs", "find", "awk"],
      });
      for (
        const cmd of ["bash -c id", "sh", "python3", "env", "xargs", "find .", "awk 1 hello.txt"]
      ) {
        const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd } });
        assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
      }
    },
  });

  Deno.test({
    name:
      `shell: interpreters and launchers under other names stay refused when added (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      const before = await fixture.outsideSnapshot();
      const secret = `${fixture.base}/secret.txt`;
      const read = `print(open("${secret}").read())`;
      // [program, cmd]: each reads the file outside the root when it runs.
      const attacks: [string, string][] = [
        ["python3.11", `python3.11 -c 'print(open("${secret}").read())'`],
        ["perl5.36.0", `perl5.36.0 -e 'open F, "${secret}"; print <F>'`],
        ["tclsh8.6", "tclsh8.6 notes.tcl"],
        ["wish8.6", "wish8.6 notes.tcl"],
        ["pydoc3.11", "pydoc3.11 notes"],
        ["vim.basic", `vim.basic -es '+r ${secret}' '+%p' '+q!'`],
        ["rvim", `rvim -es '+r ${secret}' '+%p' '+q!'`],
        ["taskset", `taskset 1 python3 -c '${read}'`],
        ["setarch", `setarch x86_64 python3 -c '${read}'`],
        ["linux64", `linux64 python3 -c '${read}'`],
        ["chrt", `chrt -o 0 python3 -c '${read}'`],
        ["ionice", `ionice -c 3 python3 -c '${read}'`],
        ["prlimit", `prlimit python3 -c '${read}'`],
        ["setpriv", `setpriv python3 -c '${read}'`],
        ["runcon", `runcon -t x python3 -c '${read}'`],
        ["split", `split '--filter=cat ${secret}' hello.txt`],
        ["perldoc", `perldoc -T -f '${secret}'`],
      ];
      await Deno.writeTextFile(
        join(fixture.root, "notes.tcl"),
        `set f [open "${secret}"]; puts [read $f]; exit`,
      );
      await Deno.writeTextFile(
        join(fixture.root, "notes.py"),
        `print(open("${secret}").read())`,
      );
      const installed = attacks.filter(([program]) =>
        ["/usr/local/bin", "/usr/bin", "/bin"].some((folder) => exists(`${folder}/${program}`))
      );
      using session = await ToolSession.open({
        root: fixture.root,
        bubblewrap: variant.bubblewrap,
        shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
        shellAllow: installed.map(([program]) => program),
      });
      for (const [, cmd] of installed) {
        const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd } });
        assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
        assert.ok(!JSON.stringify(result).includes(SENTINEL), `${cmd}: the sentinel leaked`);
      }
      assert.equal(await fixture.outsideSnapshot(), before, "something outside the root changed");
      const missing = attacks.length - installed.length;
      if (missing) console.warn(`${missing} of ${attacks.length} programs are not installed here`);
    },
  });

  Deno.test({
    name: `shell: the child sees only PATH and LANG (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      Deno.env.set("SYN_TEST_SENTINEL_VAR", SENTINEL);
      try {
        using session = await ToolSession.open({
          root: fixture.root,
          bubblewrap: variant.bubblewrap,
          shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
          shellAllow: ["printenv"],
        });
        const result = await session.call({
          id: "s",
          tool: "shell.exec",
          args: { cmd: "printenv" },
        });
        assert.equal(result.ok, true, JSON.stringify(result));
        const lines = (result.output as { stdout: string }).stdout.trim().split("\n").sort();
        // bubblewrap sets PWD to the folder it changed into: the root, no secret.
        const expected = ["LANG=C.UTF-8", "PATH=/usr/bin:/bin"];
        if (variant.bubblewrap === "auto") expected.push(`PWD=${fixture.root}`);
        assert.deepEqual(lines, expected);
      } finally {
        Deno.env.delete("SYN_TEST_SENTINEL_VAR");
      }
    },
  });

  Deno.test({
    name: `shell: a runaway is killed at its timeout and leaves no process (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      using session = await ToolSession.open({
        root: fixture.root,
        bubblewrap: variant.bubblewrap,
        shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
        shellAllow: ["sleep"],
      });
      const marker = `${31000 + Math.floor(Math.random() * 999)}`;
      const result = await session.call({
        id: "s",
        tool: "shell.exec",
        args: { cmd: `sleep ${marker}`, timeout_s: 1 },
      });
      assert.equal(result.error?.code, "timeout", JSON.stringify(result));
      let left: string[] = [];
      for (let i = 0; i < 50; i++) {
        left = sleepers(marker);
        if (!left.length) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(left, [], "a process was left behind");
      const next = await session.call({
        id: "s2",
        tool: "shell.exec",
        args: { cmd: "echo still here" },
      });
      assert.equal((next.output as { stdout: string }).stdout, "still here\n");
    },
  });

  Deno.test({
    name: `shell: huge output is capped and marked truncated (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      await Deno.writeTextFile(join(fixture.root, "big.txt"), "y".repeat(5 * 1024 * 1024));
      using session = await ToolSession.open({
        root: fixture.root,
        bubblewrap: variant.bubblewrap,
        shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
      });
      const result = await session.call({
        id: "s",
        tool: "shell.exec",
        args: { cmd: "cat big.txt" },
      });
      assert.equal(result.ok, true, JSON.stringify(result).slice(0, 300));
      const output = result.output as { stdout: string; truncated: boolean };
      assert.equal(output.truncated, true);
      assert.equal(output.stdout.length, 64 * 1024);
    },
  });

  Deno.test({
    name: `shell: allowlisted programs work and say which isolation ran (${variant.name})`,
    ignore: variant.ignore,
    async fn() {
      await using fixture = await sandboxFixture();
      using session = await ToolSession.open({
        root: fixture.root,
        bubblewrap: variant.bubblewrap,
        shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
      });
      const run = async (cmd: string) => {
        const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd } });
        assert.equal(result.ok, true, `${cmd}: ${JSON.stringify(result)}`);
        return result.output as { stdout: string; exit_code: number; isolation: string };
      };
      assert.equal((await run("grep -n TODO docs/notes.md")).stdout, "2:TODO line two\n");
      assert.equal((await run("wc -l docs/notes.md")).stdout, "3 docs/notes.md\n");
      assert.equal((await run("echo \"a  b\" 'c d' e\\ f")).stdout, "a  b c d e f\n");
      assert.equal((await run(`cat ${fixture.root}/hello.txt`)).stdout, "hello\n");
      assert.equal((await run("cat link-in.txt")).stdout, "hello\n");
      const missing = await run("cat nope.txt");
      assert.equal(missing.exit_code, 1);
      assert.equal(missing.isolation, variant.bubblewrap === "auto" ? "bubblewrap" : "argv");
    },
  });
}

Deno.test({
  name: "shell in bubblewrap: system files outside the root simply do not exist",
  ignore: VARIANTS[1].ignore,
  async fn() {
    await using fixture = await sandboxFixture();
    // A program added to the allowlist that could read anything by itself is still boxed in.
    using session = await ToolSession.open({
      root: fixture.root,
      bubblewrap: "auto",
      shellAllow: ["stat"],
    });
    const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd: "ls -a" } });
    assert.equal(result.ok, true);
    const inBox = await session.call({
      id: "s",
      tool: "shell.exec",
      args: { cmd: "stat -c %n ." },
    });
    assert.equal((inBox.output as { stdout: string }).stdout, ".\n");
  },
});

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function sleepers(marker: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0").join(" ");
      const state = Deno.readTextFileSync(`/proc/${entry.name}/status`);
      if (cmdline.includes(`sleep ${marker}`) && !/^State:\s+Z/m.test(state)) {
        found.push(`${entry.name}: ${cmdline}`);
      }
    } catch {
      // gone
    }
  }
  return found;
}

export type { ToolSessionOptions };
