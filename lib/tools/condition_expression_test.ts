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
