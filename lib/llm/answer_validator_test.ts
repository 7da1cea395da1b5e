import assert from "node:assert/strict";
import { checkJsonAnswer, withAnswerValidator } from "./_answer.ts";
import { exampleFromSchema } from "./example_from_schema.ts";
import type { GenerateRequest } from "./types.ts";

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

/** The issues the model layer reports for `value` under `schema`. */
async function issuesOf(value: unknown, schema: Record<string, unknown>): Promise<string[]> {
  const request = await withAnswerValidator({ prompt: "p", jsonSchema: schema });
  return [...request.validateJson!(value)];
}

Deno.test("answers are checked by lib/schema's validator: pointers and ajv messages", async () => {
  assert.deepEqual(
    await issuesOf({ title: "ok", intensity: 0.5, tags: ["a"], category: "visual" }, SCHEMA),
    [],
  );
  const issues = await issuesOf(
    { intensity: 2, tags: [1], category: "audio", nested: { flag: "yes", extra: 1 }, more: 1 },
    SCHEMA,
  );
  for (const pointer of ["/intensity", "/tags/0", "/category", "/nested/flag", "/nested"]) {
    assert.ok(issues.some((issue) => issue.startsWith(`${pointer}: `)), `${pointer} in ${issues}`);
  }
  assert.ok(issues.some((issue) => /^\/: .*title/.test(issue)), issues.join("; "));
});

Deno.test("integer versus number, type lists, anyOf, own required keys and enums compared as JSON", async () => {
  assert.equal((await issuesOf(1.5, { type: "integer" })).length, 1);
  assert.deepEqual(await issuesOf(3, { type: "number" }), []);
  assert.deepEqual(await issuesOf(null, { type: ["string", "null"] }), []);
  assert.equal(
    (await issuesOf(true, { anyOf: [{ type: "string" }, { type: "number" }] })).length > 0,
    true,
  );
  const inherited = await issuesOf({}, { type: "object", required: ["toString", "constructor"] });
  assert.equal(inherited.length, 2, "inherited properties do not count as present");
  const schema = { enum: [{ a: 1, b: 2 }], const: { a: 1, b: 2 } };
  assert.deepEqual(await issuesOf({ b: 2, a: 1 }, schema), []);
  assert.ok((await issuesOf({ a: 2, b: 1 }, schema)).length > 0);
});

Deno.test("checkJsonAnswer(): a failing answer is a bad_response naming the pointers", async () => {
  const request = await withAnswerValidator({ prompt: "p", jsonSchema: SCHEMA });
  assert.deepEqual(checkJsonAnswer(request, '{"title":"ok","intensity":1}'), {
    title: "ok",
    intensity: 1,
  });
  assert.throws(
    () => checkJsonAnswer(request, '{"title":"ok","intensity":5}'),
    (error: Error & { code?: string }) =>
      error.code === "bad_response" && /\/intensity: must be <= 1/.test(error.message),
  );
  const own: GenerateRequest = { prompt: "p", jsonSchema: SCHEMA, validateJson: () => ["mine"] };
  assert.equal(await withAnswerValidator(own), own, "a request's own checker is kept");
  assert.throws(() => checkJsonAnswer({ prompt: "p", jsonSchema: SCHEMA }, "{}"), TypeError);
});

Deno.test("exampleFromSchema() builds values that the validator accepts", async () => {
  const example = exampleFromSchema(SCHEMA);
  assert.deepEqual(await issuesOf(example, SCHEMA), []);
  assert.deepEqual(example, {
    title: "example",
    intensity: 0.5,
    tags: ["example"],
    category: "multimodal",
    nested: { flag: true },
  });
  assert.deepEqual(exampleFromSchema({ type: "object", properties: { list: { type: "array" } } }), {
    list: [],
  });
  const open = {
    type: "object",
    required: ["id", "note"],
    additionalProperties: { type: "string" },
  };
  assert.deepEqual(exampleFromSchema(open), { id: "example", note: "example" });
  assert.deepEqual(await issuesOf(exampleFromSchema(open), open), []);
  assert.deepEqual(exampleFromSchema({ type: "object", required: ["any"] }), { any: null });
});
