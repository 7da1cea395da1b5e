import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { SynError } from "../core/mod.ts";
import { loadSchemaStore, SCHEMA_ALIASES, type SchemaStore } from "./mod.ts";
import { schemaNameFromMarker, schemaNameFromStem } from "./_names.ts";

const NAMES = [
  "control",
  "control-bundle",
  "haptic",
  "modulation",
  "rule",
  "rule-bundle",
  "shader",
  "synesthetic-asset",
  "tone",
];

Deno.test("loadSchemaStore() lists the embedded schemas sorted, with versions and paths", async () => {
  const store = await loadSchemaStore();
  const listed = store.listSchemas();
  assert.deepEqual(listed.map((entry) => entry.name), NAMES);
  for (const entry of listed) {
    assert.equal(entry.version, "0.7.3");
    assert.equal(entry.path, `schemas/${entry.name}.schema.json`);
  }
});

Deno.test("loadSchemaStore() shares one embedded store per process", async () => {
  assert.equal(await loadSchemaStore(), await loadSchemaStore());
});

Deno.test("loadSchemaStore() reads examples at start, or at their first use when asked", async () => {
  const examplesDir = await Deno.makeTempDir();
  try {
    const atStart = await loadSchemaStore({ examplesDir });
    const onFirstUse = await loadSchemaStore({ examplesDir, examplesOnFirstUse: true });
    await Deno.writeTextFile(`${examplesDir}/tone-late.json`, '{"name": "late"}');
    // MCP spec §2: files are read on process start only, so the first store never sees it.
    assert.deepEqual(atStart.listExamples(), []);
    assert.deepEqual(onFirstUse.listExamples().map((entry) => entry.component), ["tone-late"]);
    await Deno.remove(`${examplesDir}/tone-late.json`);
    assert.equal(onFirstUse.listExamples().length, 1, "read once, then kept");
  } finally {
    await Deno.remove(examplesDir, { recursive: true });
  }
});

Deno.test("getSchema() resolves the alias and returns a copy", async () => {
  const store = await loadSchemaStore();
  assert.equal(SCHEMA_ALIASES["nested-synesthetic-asset"], "synesthetic-asset");
  const nested = store.getSchema("nested-synesthetic-asset")!;
  assert.equal(nested.schema.$id, "https://syn.tools/schemas/0.7.3/synesthetic-asset.schema.json");
  assert.equal(nested.version, "0.7.3");
  nested.schema.title = "changed";
  assert.notEqual(store.getSchema("synesthetic-asset")!.schema.title, "changed");
  assert.equal(store.getSchema("nope"), undefined);
  assert.ok(store.hasSchema("nested-synesthetic-asset"));
  assert.ok(!store.hasSchema("nope"));
  assert.ok(!store.hasSchema("__proto__"));
});

Deno.test("validate() throws not_found for an unknown schema", async () => {
  const store = await loadSchemaStore();
  assert.throws(
    () => store.validate({}, "nope"),
    (error) => error instanceof SynError && error.code === "not_found",
  );
});

Deno.test("validate() drops a top-level marker without touching the caller's object", async () => {
  const store = await loadSchemaStore();
  for (const key of ["$schema", "$schemaRef"]) {
    const asset = { [key]: "jsonschema/synesthetic-asset.schema.json", name: "x" };
    const before = structuredClone(asset);
    assert.deepEqual(store.validate(asset, "synesthetic-asset"), { ok: true, errors: [] });
    assert.deepEqual(store.validate(asset, "nested-synesthetic-asset"), { ok: true, errors: [] });
    assert.deepEqual(asset, before);
  }
  // Only the top level: a nested marker is an unknown key like any other.
  const nested = {
    name: "x",
    shader: { $schema: "x", name: "s", vertex_shader: "", fragment_shader: "" },
  };
  assert.deepEqual(store.validate(nested, "synesthetic-asset").errors, [
    { path: "/shader", msg: "must NOT have additional property '$schema'" },
  ]);
});

Deno.test("schemaFromMarker() names known schemas from relative markers and URLs", async () => {
  const store = await loadSchemaStore();
  assert.equal(store.schemaFromMarker({ $schema: "jsonschema/haptic.schema.json" }), "haptic");
  assert.equal(
    store.schemaFromMarker({ $schemaRef: "../synesthetic-asset.schema.json" }),
    "synesthetic-asset",
  );
  assert.equal(
    store.schemaFromMarker({
      $schema: "https://delk73.github.io/synesthetic-schemas/schema/0.7.3/tone.schema.json",
    }),
    "tone",
  );
  assert.equal(
    store.schemaFromMarker({ $schema: "nested-synesthetic-asset.json" }),
    "synesthetic-asset",
  );
  assert.equal(
    store.schemaFromMarker({ $schema: "https://json-schema.org/draft/2020-12/schema" }),
    undefined,
  );
  assert.equal(store.schemaFromMarker({ $schema: "other.schema.json" }), undefined);
  assert.equal(store.schemaFromMarker({ $schema: 5 }), undefined);
  assert.equal(store.schemaFromMarker([]), undefined);
  assert.equal(store.schemaFromMarker(null), undefined);
});

Deno.test("listExamples() and getExample() cover the embedded examples", async () => {
  const store = await loadSchemaStore();
  const all = store.listExamples();
  assert.deepEqual(store.listExamples("all"), all);
  assert.ok(all.some((entry) => entry.component === "canonical-baseline"));
  const sorted = [...all].sort((a, b) => (a.component < b.component ? -1 : 1));
  assert.deepEqual(all, sorted);
  assert.ok(all.every((entry) => entry.path === `schemas/examples/${entry.component}.json`));
  assert.deepEqual(store.listExamples("shader").map((entry) => entry.component), ["shader-ring"]);
  assert.deepEqual(store.listExamples("canonical-baseline").length, 1);
  assert.deepEqual(store.listExamples("nope"), []);

  const byName = store.getExample("canonical-baseline.json")!;
  const byPath = store.getExample("schemas/examples/canonical-baseline.json")!;
  assert.deepEqual(byName, byPath);
  assert.equal(byName.schema, "synesthetic-asset");
  assert.equal((byName.example as { name: string }).name, "Canonical Baseline");
  (byName.example as { name: string }).name = "changed";
  assert.equal(
    (store.getExample("canonical-baseline.json")!.example as { name: string }).name,
    "Canonical Baseline",
  );
  assert.equal(store.getExample("haptic-pulse.json")!.schema, "haptic");
  assert.equal(store.getExample("missing.json"), undefined);
});

Deno.test("the canonical baseline has what generate builds defaults from", async () => {
  const store = await loadSchemaStore();
  // deno-lint-ignore no-explicit-any
  const asset = store.getExample("canonical-baseline.json")!.example as any;
  assert.equal(asset.shader.name, "CircleSDF");
  const uniforms = asset.shader.uniforms.map((uniform: { name: string }) => uniform.name);
  for (const name of ["u_px", "u_py", "u_r", "u_time", "u_resolution"]) {
    assert.ok(uniforms.includes(name));
  }
  assert.ok(asset.shader.input_parameters.length >= 2);
  assert.equal(asset.tone.synth.type, "Tone.Synth");
  assert.ok(asset.tone.input_parameters.length >= 1);
  assert.equal(asset.haptic.device.type, "generic");
  const intensity = asset.haptic.input_parameters.find((parameter: { parameter: string }) =>
    parameter.parameter === "haptic.intensity"
  );
  assert.deepEqual([intensity.min, intensity.max], [0, 1]);
  const [x, y] = asset.control.control_parameters;
  assert.deepEqual([x.parameter, x.mappings[0].action.axis], ["shader.u_px", "mouse.x"]);
  assert.deepEqual([y.parameter, y.mappings[0].action.axis], ["shader.u_py", "mouse.y"]);
  assert.ok(x.mappings[0].action.sensitivity > 0);
  assert.ok(y.mappings[0].action.sensitivity < 0);
  assert.equal(asset.meta_info.category, "multimodal");
  for (const key of ["title", "description", "complexity", "tags"]) {
    assert.ok(key in asset.meta_info);
  }
});

Deno.test("a folder given but missing gives empty listings and not-found reads", async () => {
  const store = await loadSchemaStore({
    schemasDir: "/nonexistent/syn-schemas",
    examplesDir: "/nonexistent/syn-examples",
  });
  assert.deepEqual(store.listSchemas(), []);
  assert.deepEqual(store.listExamples(), []);
  assert.equal(store.getSchema("synesthetic-asset"), undefined);
  assert.equal(store.getExample("canonical-baseline.json"), undefined);
  assert.throws(() => store.validate({ name: "x" }, "synesthetic-asset"), SynError);
});

Deno.test("deferCompile lists at once, validates after ready(), and reports a broken set there", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn-schemas-" });
  try {
    await Deno.writeTextFile(
      `${dir}/thing.json`,
      JSON.stringify({ type: "object", required: ["id"] }),
    );
    const store = await loadSchemaStore({ schemasDir: dir, deferCompile: true });
    assert.deepEqual(store.listSchemas().map((entry) => entry.name), ["thing"]);
    await store.ready();
    assert.deepEqual(store.validate({}, "thing").errors, [
      { path: "", msg: "must have required property 'id'" },
    ]);

    await Deno.writeTextFile(`${dir}/broken.json`, JSON.stringify({ type: 12 }));
    const broken = await loadSchemaStore({ schemasDir: dir, deferCompile: true });
    await assert.rejects(
      broken.ready(),
      (error: unknown) => error instanceof SynError && error.code === "schema_invalid",
    );
    // Without deferCompile the same set fails to load at all.
    await assert.rejects(loadSchemaStore({ schemasDir: dir }), /Schema cannot be loaded/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a schema folder override shows paths as given and validates with compiled ajv", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn-schemas-" });
  try {
    await Deno.writeTextFile(
      `${dir}/thing.json`,
      JSON.stringify({ version: "2.0.0", type: "object", required: ["id"] }),
    );
    await Deno.writeTextFile(`${dir}/notes.txt`, "not a schema");
    // Symlinked files count (a shared schema linked in); broken links and folders do not.
    await Deno.mkdir(`${dir}/shared`);
    await Deno.writeTextFile(`${dir}/shared/linked.json`, JSON.stringify({ type: "string" }));
    await Deno.symlink(`${dir}/shared/linked.json`, `${dir}/linked.json`);
    await Deno.symlink(`${dir}/gone.json`, `${dir}/broken.json`);
    await Deno.symlink(`${dir}/shared`, `${dir}/folder.json`);
    const store = await loadSchemaStore({ schemasDir: `${dir}/`, examplesDir: `${dir}/shared` });
    assert.deepEqual(store.listSchemas(), [
      { name: "linked", version: "", path: `${dir}/linked.json` },
      { name: "thing", version: "2.0.0", path: `${dir}/thing.json` },
    ]);
    assert.deepEqual(store.validate(5, "linked").errors, [{ path: "", msg: "must be string" }]);
    assert.deepEqual(store.listExamples(), [
      { component: "linked", path: `${dir}/shared/linked.json` },
    ]);
    assert.deepEqual(store.validate({}, "thing"), {
      ok: false,
      errors: [{ path: "", msg: "must have required property 'id'" }],
    });
    // Without an examples folder, the examples still come from the embedded one.
    const schemasOnly = await loadSchemaStore({ schemasDir: dir });
    assert.ok(schemasOnly.getExample("canonical-baseline.json"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a symlink leading out of a schema or example folder is not followed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn-links-" });
  try {
    // A file outside both folders that a link planted inside them points at.
    await Deno.writeTextFile(`${dir}/credentials.json`, JSON.stringify({ token: "s3cret" }));
    for (const folder of ["schemas", "examples"]) {
      await Deno.mkdir(`${dir}/${folder}/inner`, { recursive: true });
      await Deno.writeTextFile(
        `${dir}/${folder}/inner/kept.json`,
        JSON.stringify({ type: "string" }),
      );
      await Deno.symlink(`${dir}/${folder}/inner/kept.json`, `${dir}/${folder}/kept.json`);
      await Deno.symlink(`${dir}/credentials.json`, `${dir}/${folder}/leak.json`);
      await Deno.symlink("../credentials.json", `${dir}/${folder}/relative-leak.json`);
    }
    const store = await loadSchemaStore({
      schemasDir: `${dir}/schemas`,
      examplesDir: `${dir}/examples`,
    });
    assert.deepEqual(store.listSchemas().map((entry) => entry.name), ["kept"]);
    assert.equal(store.getSchema("leak"), undefined);
    assert.deepEqual(store.listExamples().map((entry) => entry.path), [
      `${dir}/examples/inner/kept.json`,
      `${dir}/examples/kept.json`,
    ]);
    assert.equal(store.getExample("leak.json"), undefined);
    assert.equal(store.getExample("relative-leak.json"), undefined);
    // A folder named through a symlink of its own is still its own inside.
    await Deno.symlink(`${dir}/examples`, `${dir}/examples-link`);
    const linked = await loadSchemaStore({ examplesDir: `${dir}/examples-link` });
    assert.equal(linked.listExamples().length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a schema or example file over 16 MiB is refused before it is read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn-big-" });
  try {
    await Deno.mkdir(`${dir}/examples`);
    const big = new Uint8Array(16 * 1024 * 1024 + 1).fill(0x20);
    big.set(new TextEncoder().encode("{}"), 0);
    await Deno.writeFile(`${dir}/examples/huge.json`, big);
    await assert.rejects(
      loadSchemaStore({ examplesDir: `${dir}/examples` }),
      (error: unknown) =>
        error instanceof SynError && error.code === "io_error" &&
        error.message === `Cannot read ${dir}/examples/huge.json: larger than 16 MiB`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("validate() answers hostile input without throwing", async () => {
  const store = await loadSchemaStore();
  const loneSurrogate = JSON.parse('{"name":"x","\\ud800":1}');
  assert.deepEqual(store.validate(loneSurrogate, "synesthetic-asset").errors, [
    { path: "", msg: "must NOT have additional property '\ud800'" },
  ]);
  assert.ok(JSON.stringify(store.validate(loneSurrogate, "synesthetic-asset")).includes("\\ud800"));

  const deep = "[".repeat(10_000) + "]".repeat(10_000);
  const deepObject = JSON.parse(`{"name":"x","meta_info":{"a":${deep}}}`);
  assert.deepEqual(store.validate(deepObject, "synesthetic-asset"), { ok: true, errors: [] });
  const deepExtra = JSON.parse(`{"name":"x","extra":${deep}}`);
  assert.deepEqual(store.validate(deepExtra, "synesthetic-asset").errors, [
    { path: "", msg: "must NOT have additional property 'extra'" },
  ]);
  assert.deepEqual(store.validate(JSON.parse(deep), "synesthetic-asset").errors, [
    { path: "", msg: "must be object" },
  ]);

  const huge = JSON.parse(
    '{"name":"x","modulations":[{"id":"m","target":"t","type":"additive","waveform":"sine",' +
      '"frequency":1e400,"amplitude":-1e400,"offset":0,"phase":0}]}',
  );
  assert.deepEqual(store.validate(huge, "synesthetic-asset").errors, [
    { path: "/modulations/0/amplitude", msg: "must be number" },
    { path: "/modulations/0/frequency", msg: "must be number" },
  ]);

  const proto = JSON.parse(
    '{"name":"x","__proto__":{"polluted":true},"meta_info":{"__proto__":1}}',
  );
  assert.deepEqual(store.validate(proto, "synesthetic-asset").errors, [
    { path: "", msg: "must NOT have additional property '__proto__'" },
  ]);
  const protoOption = JSON.parse(
    '{"name":"h","device":{"type":"g","options":{"__proto__":{"value":"x"}}},"input_parameters":[]}',
  );
  assert.deepEqual(store.validate(protoOption, "haptic").errors, [
    { path: "/device/options/__proto__", msg: "must have required property 'unit'" },
    { path: "/device/options/__proto__/value", msg: "must be number" },
  ]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);

  for (const root of [null, 5, "x", [], true, undefined]) {
    assert.deepEqual(store.validate(root, "synesthetic-asset").errors, [
      { path: "", msg: "must be object" },
    ]);
  }
});

Deno.test("schemaNameFromStem() infers names from conformance-style and our file stems", () => {
  const cases: [string, string | undefined][] = [
    ["Haptic_Example", "haptic"],
    ["SynestheticAsset_Example1", "synesthetic-asset"],
    ["SynestheticAsset_ExampleDS", "synesthetic-asset"],
    ["Control-Bundle_Example", "control-bundle"],
    ["Rule-Bundle_Example", "rule-bundle"],
    ["Tone_Example", "tone"],
    ["shader-ring", "shader"],
    ["control-bundle-wheel", "control-bundle"],
    ["ShaderLib_Example", undefined],
    ["canonical-baseline", undefined],
  ];
  for (const [stem, expected] of cases) {
    assert.equal(schemaNameFromStem(stem, NAMES), expected, stem);
  }
  assert.equal(schemaNameFromMarker("jsonschema/haptic.schema.json"), "haptic");
  assert.equal(schemaNameFromMarker("../shader.json#frag"), "shader");
  assert.equal(schemaNameFromMarker("schema"), undefined);
});

/** Copies a folder tree with Deno's own calls. */
async function copyTree(from: URL, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(new URL(`${entry.name}/`, from), `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(new URL(entry.name, from), `${to}/${entry.name}`);
  }
}

Deno.test("the embedded schemas are found from a checkout whose path has spaces and '#'", async () => {
  // A URL writes "My Projects" as "My%20Projects": a path taken from `.pathname` misses it.
  const dir = await Deno.makeTempDir({ prefix: "syn checkout #1 " });
  try {
    for (const folder of ["lib/core/", "lib/schema/", "schemas/"]) {
      await copyTree(new URL(`../../${folder}`, import.meta.url), `${dir}/${folder}`);
    }
    const moved = await import(pathToFileURL(`${dir}/lib/schema/mod.ts`).href);
    const store: SchemaStore = await moved.loadSchemaStore();
    assert.deepEqual(store.listSchemas().map((entry) => entry.name), NAMES);
    assert.ok(store.getExample("canonical-baseline.json"));
    // An override folder in such a path: file URIs are its base when `$id` is missing.
    await Deno.writeTextFile(
      `${dir}/item.json`,
      JSON.stringify({ type: "object", properties: { part: { $ref: "part.json" } } }),
    );
    await Deno.writeTextFile(`${dir}/part.json`, JSON.stringify({ type: "integer" }));
    const override: SchemaStore = await moved.loadSchemaStore({ schemasDir: dir });
    assert.deepEqual(override.validate({ part: "x" }, "item").errors, [
      { path: "/part", msg: "must be integer" },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("errors and listings sort by code point, as the Python reference does", async () => {
  // U+FF5E sorts before U+1F600 by code point; by UTF-16 unit (JavaScript's `<`) it is after.
  const dir = await Deno.makeTempDir({ prefix: "syn-order-" });
  try {
    await Deno.writeTextFile(`${dir}/\u{1F600}.json`, JSON.stringify({ type: "object" }));
    await Deno.writeTextFile(`${dir}/\uFF5E.json`, JSON.stringify({ type: "object" }));
    const store = await loadSchemaStore({ schemasDir: dir, examplesDir: dir });
    assert.deepEqual(store.listSchemas().map((entry) => entry.name), ["\uFF5E", "\u{1F600}"]);
    assert.deepEqual(store.listExamples().map((entry) => entry.component), ["\uFF5E", "\u{1F600}"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const store = await loadSchemaStore();
  const options = JSON.parse('{"\u{1F600}":{"value":1},"\uFF5E":{"value":1}}');
  const haptic = { name: "h", device: { type: "g", options }, input_parameters: [] };
  assert.deepEqual(store.validate(haptic, "haptic").errors.map((issue) => issue.path), [
    "/device/options/\uFF5E",
    "/device/options/\u{1F600}",
  ]);
});

Deno.test("a schema file nested too deeply to load is a schema_invalid error naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn-deep-schema-" });
  try {
    const depth = 100_000;
    await Deno.writeTextFile(`${dir}/deep.json`, '{"a":'.repeat(depth) + "{}" + "}".repeat(depth));
    await assert.rejects(
      () => loadSchemaStore({ schemasDir: dir }),
      (error) =>
        error instanceof SynError && error.code === "schema_invalid" &&
        error.message === `Schema is nested too deeply to load: ${dir}/deep.json`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("validate() reports every element of a long invalid array, not a stack overflow", async () => {
  const store = await loadSchemaStore();
  const uniforms = Array.from({ length: 30_000 }, () => ({ name: "u", type: "float", stage: "f" }));
  const asset = {
    name: "x",
    shader: { name: "s", vertex_shader: "", fragment_shader: "", uniforms },
  };
  const result = store.validate(asset, "synesthetic-asset");
  assert.equal(result.ok, false);
  assert.equal(result.errors.length, 30_000);
  assert.deepEqual(result.errors[0], {
    path: "/shader/uniforms/0",
    msg: "must have required property 'default'",
  });
  // Sorted by path as text (spec §5), so "/…/9999" comes last; every element is there.
  const indices = new Set(result.errors.map((error) => Number(error.path.split("/").at(-1))));
  assert.equal(indices.size, 30_000);
  assert.ok(indices.has(29_999));
});
