import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { embeddedValidatorsSource, loadSchemaStore, readSchemaFiles } from "../lib/schema/mod.ts";
import { applyMutation, MUTATIONS } from "./schema_mutations.ts";

const schemasDir = fileURLToPath(new URL("../schemas/", import.meta.url));

Deno.test("lib/schema/_embedded_validators.js is generated from the current schemas/", async () => {
  const expected = await embeddedValidatorsSource(await readSchemaFiles(schemasDir));
  const committed = await Deno.readTextFile(
    new URL("../lib/schema/_embedded_validators.js", import.meta.url),
  );
  assert.ok(
    committed === expected,
    "out of date: run `deno run -A scripts/build_schema_validators.ts`",
  );
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
