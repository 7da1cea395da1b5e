import assert from "node:assert/strict";
import { parseCondition } from "./condition_expression.ts";

const context = {
  step1: { output: { status: "ok", count: 3, items: ["a", "b"], nested: { deep: [1, 2] } } },
  x: { a: [10, 20] },
  flag: true,
};

Deno.test("parseCondition() evaluates comparisons, boolean logic, literals and key access", () => {
  const cases: [string, boolean][] = [
    ['step1.output["status"] == "ok"', true],
    ["step1.output.count > 2 and step1.output.count <= 3", true],
    ["x['a'][0] == 10", true],
    ["x['a'][1] != 20 or flag", true],
    ["not flag", false],
    ["!(step1.output.count < 1) && True", true],
    ["'a' in step1.output.items", true],
    ["'z' not in step1.output.items", true],
    ["'ok' in step1.output.status", true],
    ["'status' in step1.output", true],
    ["step1.output.missing == None", true],
    ["step1.output.missing.deeper == null", true],
    ["step1.output.nested.deep[1] >= 2", true],
    ["step1.output.count > 'a'", false],
    ["step1.output.items", true],
    ["1.5e1 == 15", true],
  ];
  for (const [text, expected] of cases) assert.equal(parseCondition(text)(context), expected, text);
});

Deno.test("parseCondition() never reaches prototypes, calls or functions", () => {
  for (
    const text of [
      "step1.constructor != None",
      "step1['__proto__'] != None",
      "x.a.length == 2",
      "step1.output.toString != None",
    ]
  ) {
    assert.equal(parseCondition(text)(context), false, text);
  }
  for (
    const text of [
      "step1.output.count()",
      "eval('1')",
      "a + 1",
      "x = 1",
      "step1.",
      "(flag",
      "'open",
      "flag ==",
      "",
      "$x",
    ]
  ) {
    assert.throws(() => parseCondition(text), /condition_invalid|at position/, text);
  }
  assert.throws(() => parseCondition("(".repeat(60) + "flag" + ")".repeat(60)), /nesting deeper/);
  assert.throws(() => parseCondition("flag or ".repeat(200) + "flag"), /longer than/);
});

Deno.test("parseCondition() names what is wrong and its 1-based position", () => {
  const cases: [string, string, number][] = [
    ["step1.output.count()", "calls are not allowed at position 19", 18],
    ["a + 1", 'unexpected character "+" at position 3', 2],
    ["step1.1", "expected a key name after . at position 7", 6],
    ["(flag", "expected ) at position 6", 5],
    ["'open", "unterminated string at position 1", 0],
    ["flag ==", "unexpected end at position 8", 7],
    ["x[1", "expected ] at position 4", 3],
    ["flag)", 'unexpected ")" at position 5', 4],
    ["not not not in", 'unexpected "in" at position 13', 12],
    ["!".repeat(51) + "x", "nesting deeper than 50 at position 52", 51],
    ["x" + "[0]".repeat(51), "nesting deeper than 50 at position 152", 151],
  ];
  for (const [text, message, position] of cases) {
    assert.throws(
      () => parseCondition(text),
      (error: Error & { data?: unknown }) => {
        assert.equal(error.message, message, text);
        assert.deepEqual(error.data, { position }, text);
        return true;
      },
    );
  }
  assert.throws(() => parseCondition(7 as unknown as string), /A condition must be a string/);
});
