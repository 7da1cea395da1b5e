import assert from "node:assert/strict";
import { SynError } from "../lib/core/mod.ts";
import { eagerFunctions } from "./_eager_functions.ts";

/** Evaluates an ES module's source and returns its exports. */
function evaluate(source: string): Promise<Record<string, unknown>> {
  return import(`data:application/javascript,${encodeURIComponent(source)}`);
}

// The shape of ajv's standalone code: an export of a validator defined further down, a
// wrapper for a recursive reference, a sourceURL comment, strings and a regex with braces,
// slashes and quotes in them.
const STANDALONE = [
  'export const validate0 = validate10;const schema1 = {"a":"}{"};',
  "const wrapper0 = {validate: validate11};",
  'function validate10(data, {instancePath="", rootData=data}={}){/*# sourceURL="x}" */',
  'if (typeof data !== "object") { validate10.errors = [{message: "must be \\"}\\" or \'{\'"}];',
  "return false; }",
  'const key = String(data.k ?? "").replace(/~/g, "~0").replace(/\\//g, "~1");',
  "return wrapper0.validate(data.k, {instancePath: instancePath + '/' + key}) || key === '}';",
  "}validate10.evaluated = {props: true};",
  "function validate11(data){ // a line comment }",
  'return data === undefined || (typeof data === "number" && data / 2 >= 1); }',
  "export const validate1 = validate11;",
].join("\n");

Deno.test("eagerFunctions() parenthesizes every validator and keeps what the module does", async () => {
  const eager = eagerFunctions(STANDALONE);
  assert.doesNotMatch(eager, /(^|[;}\n])function validate\d+\(/);
  assert.equal(eager.match(/var validate\d+ = \(function validate\d+\(/g)?.length, 2);
  const before = await evaluate(STANDALONE);
  const after = await evaluate(eager);
  for (const input of [{ k: 4 }, { k: 1 }, {}, { k: "}" }, 3]) {
    const validate = (module: Record<string, unknown>) =>
      (module.validate0 as (data: unknown) => boolean)(input);
    assert.equal(validate(after), validate(before), JSON.stringify(input));
  }
  assert.deepEqual((after.validate0 as { evaluated: unknown }).evaluated, { props: true });
  const validate1 = after.validate1 as (data: unknown) => boolean;
  assert.deepEqual([validate1(4), validate1(1), validate1(undefined)], [true, false, true]);
});

Deno.test("eagerFunctions() refuses code it cannot cut into whole functions", () => {
  for (
    const code of [
      'function validate1(data){ return "}; }',
      "function validate1(data){ return `${data}`; }",
      "function validate1(data){ return data; ",
      "function validate1(data){ /* open }",
    ]
  ) {
    assert.throws(() => eagerFunctions(code), SynError, code);
  }
});

Deno.test("the generated validator modules hold no lazily compiled validator", async () => {
  for (
    const name of [
      "embedded_validators.js",
      "precompiled_record_schemas.js",
      "precompiled_service_schemas.js",
      "precompiled_tool_schemas.js",
    ]
  ) {
    const source = await Deno.readTextFile(
      new URL(`../lib/schema/_generated/${name}`, import.meta.url),
    );
    assert.doesNotMatch(source, /(^|[;}\n])function validate\d+\(/, name);
    assert.match(source, /var validate\d+ = \(function validate\d+\(/, name);
  }
});
