import assert from "node:assert/strict";
import {
  AJV_OPTIONS,
  ajvPackages,
  createAjv,
  matchesSchemaSources,
  needsEvaluationTracking,
  needsOwnPropertyChecks,
  PROTOTYPE_MODIFIED_ISSUE,
  prototypeUntouched,
  schemaSources,
} from "./_ajv.ts";
import { compileJsonSchema } from "./compile_json_schema.ts";
import { loadSchemaStore } from "./load_schema_store.ts";

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

Deno.test("needsOwnPropertyChecks() finds Object.prototype member names as keys or strings at any depth", () => {
  assert.equal(needsOwnPropertyChecks([]), false);
  const ordinary = { type: "object", required: ["name"], properties: { name: { enum: ["a"] } } };
  assert.equal(needsOwnPropertyChecks([ordinary]), false);
  assert.equal(needsOwnPropertyChecks([ordinary, { required: ["constructor"] }]), true);
  assert.equal(needsOwnPropertyChecks([{ properties: { toString: {} } }]), true);
  assert.equal(
    needsOwnPropertyChecks([{ $defs: { a: { items: [{ enum: ["valueOf"] }] } } }]),
    true,
  );
  assert.equal(needsOwnPropertyChecks([{ dependentRequired: { a: ["__proto__"] } }]), true);
});

Deno.test("createAjv() keeps own-property checks exactly for the sets that need them", async () => {
  const named = { type: "object", required: ["constructor"] };
  const checked = await createAjv([named]);
  assert.equal(checked.opts.ownProperties, true);
  assert.equal(checked.compile(named)({}), false, "an inherited constructor is not the document's");
  assert.equal(checked.compile(named)(JSON.parse('{"constructor":1}')), true);
  // Why it stays: without the checks, every object has a `constructor`.
  const { ajv2020 } = await ajvPackages();
  const unchecked = new ajv2020.Ajv2020({ ...AJV_OPTIONS, ownProperties: false });
  assert.equal(unchecked.compile(named)({}), true);

  const plain = {
    type: "object",
    required: ["a"],
    properties: { a: {} },
    additionalProperties: false,
  };
  const lean = await createAjv([plain]);
  assert.equal(lean.opts.ownProperties, false);
  const verdict = lean.compile(plain);
  assert.equal(verdict({}), false);
  assert.equal(verdict({ a: 1 }), true);
  assert.equal(verdict(JSON.parse('{"a":1,"__proto__":{"b":2}}')), false, "an own __proto__ key");
  assert.equal(verdict(JSON.parse('{"a":1,"constructor":2}')), false);
});

Deno.test("a modified Object.prototype makes every validator refuse to answer", async () => {
  const validator = await compileJsonSchema({ type: "object", required: ["shader"] });
  const store = await loadSchemaStore();
  const asset = store.getExample("canonical-baseline.json")!.example;
  assert.equal(prototypeUntouched(), true);
  assert.equal(validator({ shader: 1 }).ok, true);
  assert.equal(store.validate(asset, "synesthetic-asset").ok, true);
  Object.defineProperty(Object.prototype, "shader", { value: 1, configurable: true });
  try {
    assert.equal(prototypeUntouched(), false);
    assert.deepEqual(validator({}), { ok: false, errors: [PROTOTYPE_MODIFIED_ISSUE] });
    assert.deepEqual(validator({ shader: 1 }), { ok: false, errors: [PROTOTYPE_MODIFIED_ISSUE] });
    assert.deepEqual(store.validate(asset, "synesthetic-asset"), {
      ok: false,
      errors: [PROTOTYPE_MODIFIED_ISSUE],
    });
  } finally {
    delete (Object.prototype as Record<string, unknown>).shader;
  }
  assert.equal(prototypeUntouched(), true);
  assert.equal(store.validate(asset, "synesthetic-asset").ok, true);
  // A member swapped for another (the same count) is seen too.
  const removed = Object.getOwnPropertyDescriptor(Object.prototype, "__lookupSetter__")!;
  delete (Object.prototype as Record<string, unknown>).__lookupSetter__;
  Object.defineProperty(Object.prototype, "shader", { value: 1, configurable: true });
  try {
    assert.equal(prototypeUntouched(), false);
    assert.deepEqual(validator({ shader: 1 }), { ok: false, errors: [PROTOTYPE_MODIFIED_ISSUE] });
  } finally {
    delete (Object.prototype as Record<string, unknown>).shader;
    Object.defineProperty(Object.prototype, "__lookupSetter__", removed);
  }
  assert.equal(prototypeUntouched(), true);
});
