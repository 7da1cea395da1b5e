import assert from "node:assert/strict";
import { splitShellWords } from "./_split_command.ts";
import { ToolFailure } from "./tool_failure.ts";

function code(cmd: string): string {
  try {
    splitShellWords(cmd);
    return "ok";
  } catch (error) {
    assert.ok(error instanceof ToolFailure);
    return error.code;
  }
}

Deno.test("splitShellWords() splits like a shell: quotes and escapes, nothing expanded", () => {
  assert.deepEqual(splitShellWords("ls -la  docs"), ["ls", "-la", "docs"]);
  assert.deepEqual(splitShellWords(`grep -n "two words" 'single $x' a\\ b`), [
    "grep",
    "-n",
    "two words",
    "single $x",
    "a b",
  ]);
  assert.deepEqual(splitShellWords(`echo "a\\"b" "c\\\\d" "e\\nf"`), [
    "echo",
    'a"b',
    "c\\d",
    "e\\nf",
  ]);
  assert.deepEqual(splitShellWords("echo ''"), ["echo", ""]);
  assert.deepEqual(splitShellWords("echo a=b x~y"), ["echo", "a=b", "x~y"]);
  assert.deepEqual(splitShellWords("echo '*' '?' '[a]' ';' '|' '$(x)'"), [
    "echo",
    "*",
    "?",
    "[a]",
    ";",
    "|",
    "$(x)",
  ]);
});

Deno.test("splitShellWords() refuses every operator, expansion and glob outside single quotes", () => {
  for (
    const cmd of [
      "a;b",
      "a && b",
      "a || b",
      "a | b",
      "a &",
      "a > f",
      "a < f",
      "a >> f",
      "(a)",
      "{ a; }",
      "echo $x",
      "echo ${x}",
      "echo $(id)",
      "echo `id`",
      'echo "$x"',
      'echo "`id`"',
      "ls *",
      "ls ?",
      "ls [ab]",
      "cat ~/x",
      "echo a\nb",
      "echo a\rb",
      "a\u0000b",
      "X=1 ls",
      "# comment",
    ]
  ) assert.equal(code(cmd), "not_allowed", JSON.stringify(cmd));
});

Deno.test("splitShellWords() reports unbalanced quotes and empty or oversize input", () => {
  for (
    const cmd of ["echo 'a", 'echo "a', "echo a\\", "", "   ", "x".repeat(9000), "a ".repeat(300)]
  ) {
    assert.equal(code(cmd), "invalid_args", JSON.stringify(cmd.slice(0, 20)));
  }
});
