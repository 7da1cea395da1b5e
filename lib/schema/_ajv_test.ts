import assert from "node:assert/strict";
import { createAjv, needsEvaluationTracking, schemaFingerprint } from "./_ajv.ts";

Deno.test("schemaFingerprint() is a SHA-256 of the files in name order, changed by any edit", async () => {
  const a = { name: "a.schema.json", text: '{"type":"object"}' };
  const b = { name: "b.schema.json", text: '{"type":"string"}' };
  const fingerprint = await schemaFingerprint([a, b]);
  assert.match(fingerprint, /^[0-9a-f]{64}$/);
  assert.equal(await schemaFingerprint([b, a]), fingerprint, "the order given does not count");
  assert.notEqual(await schemaFingerprint([a, { ...b, text: '{"type":"number"}' }]), fingerprint);
  assert.notEqual(await schemaFingerprint([a]), fingerprint);
  // Names and texts are framed by their lengths: moving a boundary changes the fingerprint.
  assert.notEqual(
    await schemaFingerprint([{ name: "ab", text: "c" }]),
    await schemaFingerprint([{ name: "a", text: "bc" }]),
  );
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
