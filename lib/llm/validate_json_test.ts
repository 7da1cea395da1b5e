import assert from "node:assert/strict";
import { exampleFromSchema } from "./example_from_schema.ts";
import { validateJson } from "./validate_json.ts";

const SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 2 },
    intensity: { type: "number", minimum: 0, maximum: 1 },
    tags: { type: "array", items: { type: "string" }, minItems: 1 },
    category: { enum: ["multimodal", "visual"] },
    nested: {
      type: "object",
      properties: { flag: { type: "boolean" } },
      additionalProperties: false,
    },
  },
  required: ["title", "intensity"],
  additionalProperties: false,
};

Deno.test("validateJson() accepts a value that fits the schema", () => {
  assert.deepEqual(
    validateJson({ title: "ok", intensity: 0.5, tags: ["a"], category: "visual" }, SCHEMA),
    [],
  );
});

Deno.test("validateJson() reports each problem with its JSON Pointer", () => {
  const issues = validateJson(
    { intensity: 2, tags: [1], category: "audio", nested: { flag: "yes", extra: 1 }, more: 1 },
    SCHEMA,
  );
  assert.deepEqual(issues, [
    '/: missing required property "title"',
    "/intensity: must be <= 1",
    "/tags/0: expected string, got integer",
    '/category: must be one of ["multimodal","visual"]',
    "/nested/flag: expected boolean, got string",
    '/nested: unknown property "extra"',
    '/: unknown property "more"',
  ]);
});

Deno.test("validateJson() checks types, integer versus number, and anyOf", () => {
  assert.deepEqual(validateJson(1.5, { type: "integer" }), ["/: expected integer, got number"]);
  assert.deepEqual(validateJson(3, { type: "number" }), []);
  assert.deepEqual(validateJson(null, { type: ["string", "null"] }), []);
  assert.deepEqual(validateJson(true, { anyOf: [{ type: "string" }, { type: "number" }] }), [
    "/: matches none of the allowed shapes",
  ]);
});

Deno.test("exampleFromSchema() builds a value that passes validateJson()", () => {
  const example = exampleFromSchema(SCHEMA);
  assert.deepEqual(validateJson(example, SCHEMA), []);
  assert.deepEqual(example, {
    title: "example",
    intensity: 0.5,
    tags: ["example"],
    category: "multimodal",
    nested: { flag: true },
  });
});

Deno.test("exampleFromSchema() gives an empty list for an array without an item schema", () => {
  assert.deepEqual(exampleFromSchema({ type: "object", properties: { list: { type: "array" } } }), {
    list: [],
  });
});

Deno.test("exampleFromSchema() fills a required property the schema does not list", () => {
  const schema = {
    type: "object",
    required: ["id", "note"],
    additionalProperties: { type: "string" },
  };
  const example = exampleFromSchema(schema);
  assert.deepEqual(example, { id: "example", note: "example" });
  assert.deepEqual(validateJson(example, schema), []);
  assert.deepEqual(exampleFromSchema({ type: "object", required: ["any"] }), { any: null });
});

Deno.test("validateJson() needs required properties to be own, and compares enums as JSON", () => {
  assert.deepEqual(validateJson({}, { type: "object", required: ["toString", "constructor"] }), [
    '/: missing required property "toString"',
    '/: missing required property "constructor"',
  ]);
  const schema = { enum: [{ a: 1, b: 2 }], const: { a: 1, b: 2 } };
  assert.deepEqual(validateJson({ b: 2, a: 1 }, schema), []);
  assert.equal(validateJson({ a: 2, b: 1 }, schema).length, 2);
});
