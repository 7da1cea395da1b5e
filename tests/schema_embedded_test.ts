import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { compileJsonSchema, loadSchemaStore } from "../lib/schema/mod.ts";
import { generatedSchemaModules, startPathSchemas } from "../scripts/_generated_schema_modules.ts";
import { applyMutation, MUTATIONS } from "./schema_mutations.ts";

const schemasDir = fileURLToPath(new URL("../schemas/", import.meta.url));

Deno.test("the generated modules of lib/schema/ are in sync with their schemas and ajv-formats", async () => {
  for (const { path, source } of await generatedSchemaModules()) {
    const committed = await Deno.readTextFile(new URL(`../${path}`, import.meta.url));
    assert.ok(
      committed === source,
      `${path} is out of date: run \`deno run -A scripts/build_schema_validators.ts\``,
    );
  }
});

Deno.test("precompiled start-path validators answer as run-time compiled ajv does", async () => {
  const values = [null, 1, "x", [], {}, { path: "a" }, { path: 1 }, { path: "a", extra: true }];
  for (const schema of startPathSchemas()) {
    const precompiled = await compileJsonSchema(schema);
    // Any change to the text misses the precompiled table: ajv compiles this one now.
    const compiled = await compileJsonSchema({ ...schema, description: "compiled at run time" });
    for (const value of values) {
      assert.deepEqual(precompiled(value), compiled(value), JSON.stringify(value));
    }
  }
});

Deno.test("embedded validators and run-time compiled ajv agree on every mutation", async () => {
  const embedded = await loadSchemaStore();
  const compiled = await loadSchemaStore({ schemasDir });
  const baseline = embedded.getExample("canonical-baseline.json")!.example;
  for (const mutation of MUTATIONS) {
    const document = applyMutation(baseline, mutation);
    assert.deepEqual(
      embedded.validate(document, "synesthetic-asset"),
      compiled.validate(document, "synesthetic-asset"),
      mutation.name,
    );
  }
  for (const entry of embedded.listExamples()) {
    const { example, schema } = embedded.getExample(entry.path)!;
    assert.ok(compiled.validate(example, schema).ok, entry.path);
  }
});
