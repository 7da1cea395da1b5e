import assert from "node:assert/strict";
import { loadSchemaStore, type SchemaStore } from "../lib/schema/mod.ts";
import {
  CONFORMANCE_EXAMPLES,
  CONFORMANCE_PUBLISHED_SCHEMAS,
  CONFORMANCE_SCHEMAS,
  sharedMissing,
  sharedPath,
} from "./fakes/shared.ts";
import { seededRandom } from "./fakes/random.ts";
import { applyMutation, MUTATIONS } from "./schema_mutations.ts";

const missing = sharedMissing(CONFORMANCE_SCHEMAS) || sharedMissing(CONFORMANCE_EXAMPLES);
const publishedMissing = sharedMissing(CONFORMANCE_PUBLISHED_SCHEMAS);

const baseline = () =>
  JSON.parse(
    Deno.readTextFileSync(new URL("../schemas/examples/canonical-baseline.json", import.meta.url)),
  );

function conformanceStore(schemasDir = sharedPath(CONFORMANCE_SCHEMAS)): Promise<SchemaStore> {
  return loadSchemaStore({ schemasDir, examplesDir: sharedPath(CONFORMANCE_EXAMPLES) });
}

/** The conformance examples upstream validates (the `_skip/` one is left out there too). */
function conformanceExamples(store: SchemaStore) {
  return store.listExamples().filter((entry) => !entry.path.includes("/_skip/"));
}

Deno.test({
  name: "every conformance example is valid under our schemas, marker dropped",
  ignore: missing,
  async fn() {
    const ours = await loadSchemaStore();
    const reference = await conformanceStore();
    const examples = conformanceExamples(reference);
    assert.equal(examples.length, 15);
    for (const entry of examples) {
      const { example, schema } = reference.getExample(entry.path)!;
      assert.ok(ours.hasSchema(schema), `${entry.path} names ${schema}`);
      assert.deepEqual(ours.validate(example, schema), { ok: true, errors: [] }, entry.path);
    }
  },
});

Deno.test({
  name: "every example of ours is valid under the conformance schema set",
  ignore: missing,
  async fn() {
    const ours = await loadSchemaStore();
    const reference = await conformanceStore();
    const examples = ours.listExamples();
    assert.ok(examples.length >= 7);
    for (const entry of examples) {
      const { example, schema } = ours.getExample(entry.path)!;
      assert.deepEqual(reference.validate(example, schema), { ok: true, errors: [] }, entry.path);
      assert.deepEqual(ours.validate(example, schema), { ok: true, errors: [] }, entry.path);
    }
  },
});

Deno.test({
  name: "no schema file of ours is byte-identical to a conformance file",
  ignore: missing,
  async fn() {
    const theirs = new Set<string>();
    for await (const entry of Deno.readDir(sharedPath(CONFORMANCE_SCHEMAS))) {
      theirs.add(await Deno.readTextFile(`${sharedPath(CONFORMANCE_SCHEMAS)}/${entry.name}`));
    }
    for await (const entry of Deno.readDir(new URL("../schemas/", import.meta.url))) {
      if (!entry.isFile) continue;
      const text = await Deno.readTextFile(new URL(`../schemas/${entry.name}`, import.meta.url));
      assert.ok(!theirs.has(text), entry.name);
    }
  },
});

Deno.test({
  name: "mutations get the same verdict and the same pointers from both schema sets",
  ignore: missing,
  async fn() {
    const ours = await loadSchemaStore();
    const reference = await conformanceStore();
    const base = baseline();
    const invalid = MUTATIONS.filter((mutation) => mutation.expected.length > 0);
    assert.ok(invalid.length >= 40, `${invalid.length} invalid mutations`);
    for (const mutation of MUTATIONS) {
      const document = applyMutation(base, mutation);
      const mine = ours.validate(document, "synesthetic-asset");
      const theirs = reference.validate(document, "synesthetic-asset");
      assert.equal(mine.ok, mutation.expected.length === 0, mutation.name);
      assert.equal(theirs.ok, mine.ok, `verdicts differ: ${mutation.name}`);
      assert.deepEqual(mine.errors, mutation.expected, mutation.name);
      assert.deepEqual(
        theirs.errors.map((issue) => issue.path),
        mutation.expected.map((issue) => issue.path),
        `reference pointers: ${mutation.name}`,
      );
    }
  },
});

Deno.test({
  name: "mutations of conformance Example1 get the same verdict from both sets",
  ignore: missing,
  async fn() {
    const ours = await loadSchemaStore();
    const reference = await conformanceStore();
    const { example } = reference.getExample("SynestheticAsset_Example1.json")!;
    let invalid = 0;
    for (const mutation of MUTATIONS) {
      let document: unknown;
      try {
        document = applyMutation(example, mutation);
      } catch {
        continue; // The mutation addresses a part Example1 does not have.
      }
      const mine = ours.validate(document, "synesthetic-asset");
      const theirs = reference.validate(document, "synesthetic-asset");
      assert.deepEqual(mine.ok, theirs.ok, mutation.name);
      assert.deepEqual(
        mine.errors.map((issue) => issue.path),
        theirs.errors.map((issue) => issue.path),
        mutation.name,
      );
      if (!mine.ok) invalid++;
    }
    assert.ok(invalid >= 30, `${invalid} invalid`);
  },
});

/** Every location in a document except the root, as reference tokens. */
function locations(document: unknown, path: (string | number)[] = []): (string | number)[][] {
  const found: (string | number)[][] = path.length ? [path] : [];
  if (Array.isArray(document)) {
    document.forEach((item, index) => found.push(...locations(item, [...path, index])));
  } else if (document !== null && typeof document === "object") {
    for (const [key, value] of Object.entries(document)) {
      found.push(...locations(value, [...path, key]));
    }
  }
  return found;
}

Deno.test({
  name: "random damage to every example gets the same verdict from both sets",
  ignore: missing,
  async fn() {
    const ours = await loadSchemaStore();
    const reference = await conformanceStore();
    const seeds: { example: unknown; schema: string }[] = [];
    for (const store of [ours, reference]) {
      for (const entry of conformanceExamples(store)) {
        const { example, schema } = store.getExample(entry.path)!;
        seeds.push({ example, schema });
      }
    }
    const replacements = [
      null,
      0,
      -1.5,
      "",
      "x",
      "sine",
      "mouse.x",
      true,
      [],
      [1],
      {},
      {
        name: "n",
      },
      "2025-01-01T00:00:00Z",
      "yesterday",
    ];
    let invalid = 0;
    for (let round = 0; round < 4_000; round++) {
      const seed = 0xfa11 + round;
      const random = seededRandom(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
      const { example, schema } = pick(seeds);
      const document = structuredClone(example) as Record<string, unknown>;
      for (let change = 0; change < 1 + Math.floor(random() * 2); change++) {
        const path = pick(locations(document));
        if (!path) break;
        let parent = document as Record<string | number, unknown>;
        for (const token of path.slice(0, -1)) {
          parent = parent[token] as Record<string | number, unknown>;
        }
        const last = path[path.length - 1];
        const roll = random();
        if (roll < 0.3 && !Array.isArray(parent)) delete parent[last];
        else if (roll < 0.85) parent[last] = structuredClone(pick(replacements));
        else if (Array.isArray(parent)) parent.push(structuredClone(pick(replacements)));
        else parent.unknown_member = 1;
      }
      const mine = ours.validate(document, schema);
      const theirs = reference.validate(document, schema);
      const where = `seed ${seed}, ${schema}: ${JSON.stringify(document).slice(0, 400)}`;
      assert.equal(mine.ok, theirs.ok, where);
      if (!mine.ok) {
        invalid++;
        assert.ok(mine.errors.length > 0, where);
      }
    }
    // Both verdicts must occur often, or the comparison proves little.
    assert.ok(invalid > 1_000 && invalid < 3_500, `${invalid} of 4,000 invalid`);
  },
});

Deno.test({
  name: "the upstream transcript's invalid shader is reported at /shader, per missing field",
  ignore: missing,
  async fn() {
    const reference = await conformanceStore();
    const result = reference.validate({ name: "x", shader: { name: "s" } }, "synesthetic-asset");
    assert.deepEqual(result, {
      ok: false,
      errors: [
        { path: "/shader", msg: "must have required property 'fragment_shader'" },
        { path: "/shader", msg: "must have required property 'vertex_shader'" },
      ],
    });
  },
});

Deno.test({
  name: "$ref by $id works with the published-ids copy of the set",
  ignore: missing || publishedMissing,
  async fn() {
    const published = await conformanceStore(sharedPath(CONFORMANCE_PUBLISHED_SCHEMAS));
    const listed = published.listSchemas();
    assert.equal(listed.length, 9);
    assert.ok(listed.every((entry) => entry.version === "0.7.3"));
    for (const entry of conformanceExamples(published)) {
      const { example, schema } = published.getExample(entry.path)!;
      assert.ok(published.validate(example, schema).ok, entry.path);
    }
    const broken = applyMutation(baseline(), MUTATIONS[4]);
    assert.deepEqual(published.validate(broken, "synesthetic-asset").errors, MUTATIONS[4].expected);
  },
});

Deno.test({
  name: "a schema folder whose files lack $id resolves relative $refs from file paths",
  ignore: missing,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "syn-schemas-" });
    try {
      for await (const entry of Deno.readDir(sharedPath(CONFORMANCE_SCHEMAS))) {
        const text = await Deno.readTextFile(`${sharedPath(CONFORMANCE_SCHEMAS)}/${entry.name}`);
        const schema = JSON.parse(text.replaceAll("https://schemas.synesthetic.dev/0.7.3/", ""));
        delete schema.$id;
        await Deno.writeTextFile(`${dir}/${entry.name}`, JSON.stringify(schema));
      }
      const store = await conformanceStore(dir);
      assert.ok(!JSON.stringify(store.getSchema("synesthetic-asset")!.schema).includes("$id"));
      for (const entry of conformanceExamples(store)) {
        const { example, schema } = store.getExample(entry.path)!;
        assert.ok(store.validate(example, schema).ok, entry.path);
      }
      for (const mutation of MUTATIONS.slice(0, 12)) {
        const result = store.validate(applyMutation(baseline(), mutation), "synesthetic-asset");
        assert.deepEqual(
          result.errors.map((issue) => issue.path),
          mutation.expected.map((issue) => issue.path),
          mutation.name,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "listing a folder matches the reference order and includes _skip/",
  ignore: missing,
  async fn() {
    const store = await conformanceStore();
    const examplesDir = sharedPath(CONFORMANCE_EXAMPLES);
    const listed = store.listExamples("all");
    assert.equal(listed.length, 16);
    assert.deepEqual(listed.slice(0, 5).map((entry) => entry.component), [
      "Control-Bundle_Example",
      "Haptic_Example",
      "Rule-Bundle_Example",
      "ShaderLib_Example",
      "Shader_Example",
    ]);
    assert.equal(listed[3].path, `${examplesDir}/_skip/ShaderLib_Example.json`);
    assert.equal(listed.at(-1)!.component, "Tone_Example");
    assert.deepEqual(store.listSchemas().map((entry) => entry.name), [
      "control",
      "control-bundle",
      "haptic",
      "modulation",
      "rule",
      "rule-bundle",
      "shader",
      "synesthetic-asset",
      "tone",
    ]);
    assert.equal(
      store.listSchemas()[0].path,
      `${sharedPath(CONFORMANCE_SCHEMAS)}/control.schema.json`,
    );
    assert.equal(store.getExample("Haptic_Example.json")!.schema, "haptic");
    assert.equal(store.getExample("_skip/ShaderLib_Example.json")!.schema, "synesthetic-asset");
  },
});
