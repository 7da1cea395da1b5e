import assert from "node:assert/strict";
import { conformJson, numericString } from "./conform_json.ts";
import { embeddedSchemaFiles, embeddedSchemaSet, schemaSetOf } from "./schema_set.ts";

const ID = "urn:test:thing";

function setOf(schema: Record<string, unknown>) {
  return schemaSetOf({ thing: { $id: ID, ...schema } });
}

Deno.test("conformJson() coerces a numeric string only where a number fits and a string does not", () => {
  const set = setOf({
    type: "object",
    properties: {
      size: { type: "number" },
      count: { type: "integer" },
      label: { type: ["number", "string"] },
      either: { type: ["number", "null"] },
    },
  });
  const { value, issues } = conformJson(
    { size: " 0.5 ", count: "3", label: "2", either: "-1e-2" },
    { reference: ID, set },
  );
  assert.deepEqual(value, { size: 0.5, count: 3, label: "2", either: -0.01 });
  assert.deepEqual(issues, []);
  assert.deepEqual(conformJson({ count: "2.5", size: "0x10" }, { reference: ID, set }).issues, [
    { path: "/count", msg: "expected an integer, got string" },
    { path: "/size", msg: "expected a number, got string" },
  ]);
  assert.equal(numericString("+1"), undefined);
  assert.equal(numericString("Infinity"), undefined);
});

Deno.test("conformJson() rejects unknown keys only where additionalProperties is false", () => {
  const set = setOf({
    type: "object",
    additionalProperties: false,
    properties: { open: { type: "object" }, map: { additionalProperties: { type: "number" } } },
  });
  const { value, issues } = conformJson(
    { open: { any: [1] }, map: { a: "1" }, extra: true },
    { reference: ID, set },
  );
  assert.deepEqual(issues, [{ path: "", msg: "unknown field 'extra'" }]);
  assert.deepEqual(value, { open: { any: [1] }, map: { a: 1 }, extra: true });
});

Deno.test("conformJson() checks required fields only when asked", () => {
  const set = setOf({ type: "object", required: ["name"] });
  assert.deepEqual(conformJson({}, { reference: ID, set }).issues, []);
  assert.deepEqual(conformJson({}, { reference: ID, set }, { required: true }).issues, [
    { path: "", msg: "missing required field 'name'" },
  ]);
});

Deno.test("conformJson() follows $refs through the set and takes the anyOf branch of the value's type", () => {
  const set = embeddedSchemaSet();
  const asset = embeddedSchemaSet().idOf("synesthetic-asset")!;
  assert.deepEqual(
    conformJson({ name: "a", shader: { name: "s", extra: 1 }, tone: null }, {
      reference: asset,
      set,
    }).issues,
    [{ path: "/shader", msg: "unknown field 'extra'" }],
  );
  assert.deepEqual(
    conformJson({ name: "a", control: { control_parameters: [{ type: "x" }] } }, {
      reference: asset,
      set,
    })
      .issues,
    [{
      path: "/control/control_parameters/0/type",
      msg: 'must be one of float, int, bool, string, got "x"',
    }],
  );
});

Deno.test("conformJson() bounds free-form depth and keeps hostile keys as own data", () => {
  const set = setOf({ type: "object" });
  let deep: unknown = 1;
  for (let index = 0; index < 60; index++) deep = { deep };
  assert.match(
    conformJson({ deep }, { reference: ID, set }).issues[0].msg,
    /nested deeper than 48 levels/,
  );
  const { value } = conformJson(JSON.parse('{"__proto__": {"polluted": true}}'), {
    reference: ID,
    set,
  });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.hasOwn(value as object, "__proto__"));
});

Deno.test("the embedded schema set holds exactly the files in schemas/", async () => {
  const folder = new URL("../../schemas/", import.meta.url);
  const files: Record<string, unknown> = {};
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".schema.json")) {
      files[entry.name] = JSON.parse(await Deno.readTextFile(new URL(entry.name, folder)));
    }
  }
  assert.deepEqual({ ...embeddedSchemaFiles() }, files);
});
