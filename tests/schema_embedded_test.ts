import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { compileJsonSchema, loadSchemaStore, readSchemaFiles } from "../lib/schema/mod.ts";
import { createAjv, needsEvaluationTracking, needsOwnPropertyChecks } from "../lib/schema/_ajv.ts";
import {
  CONFORMANCE_EXAMPLES,
  CONFORMANCE_SCHEMAS,
  sharedMissing,
  sharedPath,
} from "./fakes/shared.ts";
import { generatedSchemaModules, startPathSchemas } from "../scripts/_generated_schema_modules.ts";
import { applyMutation, MUTATIONS } from "./schema_mutations.ts";
import { canonicalJson } from "../lib/core/mod.ts";
import { loadServerSide } from "../lib/mcp/mod.ts";
import { BASELINE_TOOLS } from "../lib/tools/mod.ts";
import { REGISTRY_ENTRY_SCHEMA, SYNTHESIZED_TOOL_SCHEMA } from "../lib/synthesize/mod.ts";
import type { PrecompiledGroup } from "../lib/schema/mod.ts";
import clientFrameSchema from "../schemas/records/chat-client-frame.schema.json" with {
  type: "json",
};
import toolEventSchema from "../schemas/records/tool-event.schema.json" with { type: "json" };

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

Deno.test("every schema a start path compiles is generated, in the module its caller looks in first", async () => {
  const modules: Record<PrecompiledGroup, ReadonlyMap<string, unknown>> = {
    service: (await import("../lib/schema/_precompiled_service_schemas.js")).PRECOMPILED,
    tools: (await import("../lib/schema/_precompiled_tool_schemas.js")).PRECOMPILED,
    records: (await import("../lib/schema/_precompiled_schemas.js")).PRECOMPILED,
  };
  const { toolParameterSchemas } = await loadServerSide();
  const used: [PrecompiledGroup, string, unknown][] = [
    ...toolParameterSchemas().map((schema, index) => ["service", `service #${index}`, schema]),
    ...BASELINE_TOOLS.map((tool) => ["tools", tool.name, tool.argsSchema]),
    ["records", "chat client frame", clientFrameSchema],
    ["records", "tool event", toolEventSchema],
    ["records", "synthesized tool", SYNTHESIZED_TOOL_SCHEMA],
    ["records", "registry entry", REGISTRY_ENTRY_SCHEMA],
  ] as [PrecompiledGroup, string, unknown][];
  for (const [group, name, schema] of used) {
    assert.ok(modules[group].has(canonicalJson(schema)), `${name} is not generated in ${group}`);
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

/** Keys that name `Object.prototype` members, added to objects as their own keys. */
const PROTOTYPE_NAMED_KEYS = ["constructor", "toString", "__proto__", "hasOwnProperty"];

/**
 * Variants of `document` (to `depth` levels): every value replaced in turn by each of a
 * few of another type, every object key removed in turn, and keys named like
 * `Object.prototype` members added to every object (as its own keys, as `JSON.parse` makes
 * them).
 */
function* variantsOf(document: unknown, depth: number): Generator<unknown> {
  if (depth === 0 || document === null || typeof document !== "object") return;
  if (!Array.isArray(document)) {
    const record = document as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      yield Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
    }
    for (const key of PROTOTYPE_NAMED_KEYS) yield { ...record, [key]: 1 };
  }
  for (const key of Object.keys(document)) {
    const child = (document as Record<string, unknown>)[key];
    for (const value of [null, 1, 0.5, "x", true, [], {}, [{}]]) {
      yield Array.isArray(document)
        ? document.with(Number(key), value)
        : { ...document as Record<string, unknown>, [key]: value };
    }
    for (const variant of variantsOf(child, depth - 1)) {
      yield Array.isArray(document)
        ? document.with(Number(key), variant)
        : { ...document as Record<string, unknown>, [key]: variant };
    }
  }
}

/**
 * ajv built both ways for one schema set: as Ajv2020 builds it with `AJV_OPTIONS` (tracking
 * evaluated properties and items, checking own properties) and as `createAjv` builds it for
 * a set without the keywords that need the one and the key names that need the other.
 * The same verdict and the same ajv errors, on documents that fail in many places (`anyOf`
 * included, keys missing, keys named like `Object.prototype` members), show leaving both
 * out changes nothing but the work.
 */
async function assertLeanChangesNothing(dir: string, examplesDir: string) {
  const schemas = readSchemaFiles(dir).map((file) => JSON.parse(file.text));
  assert.equal(needsEvaluationTracking(schemas), false, dir);
  assert.equal(needsOwnPropertyChecks(schemas), false, dir);
  const lean = await createAjv(schemas);
  const tracked = await createAjv(schemas);
  assert.equal(lean.opts.unevaluated, false);
  assert.equal(lean.opts.ownProperties, false);
  tracked.opts.unevaluated = true;
  tracked.opts.ownProperties = true;
  for (const schema of schemas) {
    lean.addSchema(schema);
    tracked.addSchema(schema);
  }
  const store = await loadSchemaStore({ schemasDir: dir, examplesDir });
  let compared = 0;
  for (const entry of store.listExamples()) {
    const { example, schema } = store.getExample(entry.path)!;
    const id = schemas.find((candidate) => candidate.$id?.includes(`/${schema}.schema.json`))?.$id;
    if (id === undefined) continue;
    const [a, b] = [lean.getSchema(id)!, tracked.getSchema(id)!];
    const { $schema: _marker, ...document } = example as Record<string, unknown>;
    for (const variant of [document, ...variantsOf(document, 4)]) {
      assert.equal(a(variant), b(variant), `${entry.path}: ${JSON.stringify(variant)}`);
      assert.deepEqual(a.errors, b.errors, `${entry.path}: ${JSON.stringify(variant)}`);
      compared++;
    }
  }
  assert.ok(compared > 1000, `compared ${compared} documents`);
}

Deno.test("ajv without evaluation tracking or own-property checks: the same verdicts and errors for our schema set", async () => {
  await assertLeanChangesNothing(schemasDir, `${schemasDir}/examples`);
});

Deno.test({
  name:
    "ajv without evaluation tracking or own-property checks: the same verdicts and errors for the conformance set",
  ignore: sharedMissing(CONFORMANCE_SCHEMAS) || sharedMissing(CONFORMANCE_EXAMPLES),
  async fn() {
    await assertLeanChangesNothing(
      sharedPath(CONFORMANCE_SCHEMAS),
      sharedPath(CONFORMANCE_EXAMPLES),
    );
  },
});
