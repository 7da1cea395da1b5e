import assert from "node:assert/strict";
import { createAjv, matchesSchemaSources, needsEvaluationTracking, schemaSources } from "./_ajv.ts";

Deno.test("the generated validators' sources match only the very files they were built from", () => {
  const a = { name: "a.schema.json", text: '{"type":"object"}' };
  const b = { name: "b.schema.json", text: '{"type":"string"}' };
  const sources = schemaSources([b, a]);
  assert.deepEqual(Object.keys(sources), ["a.schema.json", "b.schema.json"], "sorted by name");
  assert.equal(matchesSchemaSources([a, b], sources), true);
  assert.equal(matchesSchemaSources([b, a], sources), true, "the order read does not count");
  // An edit (even of whitespace), a removed, added or renamed file: not the same set.
  assert.equal(matchesSchemaSources([a, { ...b, text: '{"type": "string"}' }], sources), false);
  assert.equal(matchesSchemaSources([a], sources), false);
  assert.equal(matchesSchemaSources([a, b, { name: "c.schema.json", text: "{}" }], sources), false);
  assert.equal(matchesSchemaSources([a, { ...b, name: "c.schema.json" }], sources), false);
  // A file named like an inherited property is not found on the prototype.
  assert.equal(matchesSchemaSources([a, { name: "toString", text: b.text }], sources), false);
});

Deno.test("needsEvaluationTracking() finds unevaluated* and patternProperties at any depth", () => {
  assert.equal(needsEvaluationTracking([]), false);
  assert.equal(
    needsEvaluationTracking([{ type: "object", properties: { a: { anyOf: [] } } }]),
    false,
  );
  for (const keyword of ["unevaluatedProperties", "unevaluatedItems", "patternProperties"]) {
    const deep = { $defs: { a: { items: [{ allOf: [{ [keyword]: false }] }] } } };
    assert.equal(needsEvaluationTracking([{ type: "string" }, deep]), true, keyword);
  }
});

Deno.test("createAjv() keeps evaluation tracking exactly for the sets that need it", async () => {
  // patternProperties inside anyOf: with tracking every property is checked, and the
  // errors of a failing document list one more.
  const schema = {
    anyOf: [{ type: "object", patternProperties: { "^a": { type: "string" } } }, { type: "null" }],
  };
  const tracked = await createAjv([schema]);
  assert.equal(tracked.opts.unevaluated, true);
  const verdict = tracked.compile(schema);
  assert.equal(verdict({ a1: 1, a2: 2 }), false);
  assert.equal(verdict.errors?.length, 4);
  const lean = await createAjv([{ anyOf: [{ type: "object" }, { type: "null" }] }]);
  assert.equal(lean.opts.unevaluated, false);
  const unevaluated = { type: "object", unevaluatedProperties: false };
  assert.equal((await createAjv([unevaluated])).compile(unevaluated)({ a: 1 }), false);
});
