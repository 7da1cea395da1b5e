/**
 * The schema store: schemas indexed, examples listed, one validator per schema (generated
 * ahead of time for the embedded set, else compiled by ajv), and validation that explains
 * its failures. Loaded by `loadSchemaStore` when a store is first asked for.
 */
import {
  compareCodePoints,
  copyOwn,
  errorMessage,
  isRecord,
  joinPath,
  parseJson,
  pathToFileUrl,
  SynError,
} from "../core/mod.ts";
import {
  createAjv,
  matchesSchemaSources,
  PROTOTYPE_MODIFIED_ISSUE,
  prototypeUntouched,
  type VerdictFunction,
} from "./_ajv.ts";
import { explainIssues, type FormatDefinition, sortIssues } from "./_explain.ts";
import {
  SCHEMA_ALIASES,
  schemaNameFromFile,
  schemaNameFromMarker,
  schemaNameFromStem,
} from "./_names.ts";
import { SchemaIndex } from "./_schema_index.ts";
import {
  EMBEDDED_EXAMPLES,
  EMBEDDED_SCHEMAS,
  readExampleFiles,
  readSchemaFiles,
  type SchemaFileText,
} from "./schema_files.ts";
import type {
  ExampleEntry,
  SchemaEntry,
  SchemaStore,
  ValidationIssue,
  ValidationResult,
} from "./types.ts";

/** Where the store reads from; each `undefined` means the embedded `schemas/` folders. */
export interface LoadSchemaStoreOptions {
  /** A `SYN_SCHEMAS_DIR` value: a folder of `*.json` schema files. */
  schemasDir?: string;
  /** A `SYN_EXAMPLES_DIR` value: a folder of `*.json` examples (subfolders included). */
  examplesDir?: string;
  /**
   * Return once schemas and examples are read (discovery) and compile the validators
   * only when `ready()` is first called; `validate` needs it awaited first. A server uses
   * it to enter its loop sooner: importing ajv and compiling a folder's schemas costs
   * ~100 ms of CPU, which would otherwise delay readiness even if run in the background.
   * With neither folder given it changes nothing: the shared embedded store is returned,
   * ready at once (its validators are generated ahead of time).
   */
  deferCompile?: boolean;
  /**
   * Read the examples when they are first listed or read, not at start. For a one-shot
   * command that may never list them (`syn validate`: ~2 ms of its start); a server keeps
   * the default, as MCP spec §2 reads files on process start only.
   */
  examplesOnFirstUse?: boolean;
}

/** MCP spec §5 orders listings as the Python reference sorts strings: by code point. */
const compare = compareCodePoints;

interface LoadedSchema extends SchemaEntry {
  schema: Record<string, unknown>;
  uri: string;
}

interface LoadedExample extends ExampleEntry {
  /** Path inside the examples folder, `/`-separated (`_skip/ShaderLib_Example.json`). */
  relative: string;
  text: string;
  schema: string;
}

/** A displayed path: the folder as given (without a trailing `/`) joined with the file. */
function displayPath(dir: string, relative: string): string {
  const shown = dir.replaceAll("\\", "/").replace(/\/+$/, "");
  return shown ? `${shown}/${relative}` : relative;
}

function versionOf(schema: Record<string, unknown>): string {
  const version = schema["x-schema-version"] ?? schema.version;
  return typeof version === "string" ? version : "";
}

/** A top-level `$schema`/`$schemaRef` marker, if the document has one. */
function markerOf(document: unknown): string | undefined {
  if (!isRecord(document)) return undefined;
  for (const key of ["$schema", "$schemaRef"]) {
    if (Object.hasOwn(document, key) && typeof document[key] === "string") {
      return document[key] as string;
    }
  }
  return undefined;
}

/**
 * The document without its top-level `$schema`/`$schemaRef` marker (MCP spec §9,
 * reconciliation 3). A shallow copy: the caller's object is never mutated.
 */
function dropMarker(document: unknown): unknown {
  if (!isRecord(document)) return document;
  if (!Object.hasOwn(document, "$schema") && !Object.hasOwn(document, "$schemaRef")) {
    return document;
  }
  return copyOwn(document, (key) => key === "$schema" || key === "$schemaRef");
}

/** Issues from ajv's own errors, used only if the explainer finds nothing to report. */
function issuesFromAjv(errors: VerdictFunction["errors"]): ValidationIssue[] {
  const issues = (errors ?? []).map((error) => {
    const params = error.params as { additionalProperty?: string } | undefined;
    const msg = error.keyword === "additionalProperties" && params?.additionalProperty
      ? `must NOT have additional property '${params.additionalProperty}'`
      : error.message ?? `failed keyword ${error.keyword}`;
    return { path: error.instancePath, msg };
  });
  return sortIssues(issues.length ? issues : [{ path: "", msg: "document is invalid" }]);
}

type VerdictSource = (uri: string, name: string) => VerdictFunction;

/** The generated validators, while the files are the ones they were built from. */
async function embeddedVerdicts(
  files: readonly SchemaFileText[],
): Promise<VerdictSource | undefined> {
  const generated = await import("./_generated/embedded_validators.js");
  if (!matchesSchemaSources(files, generated.SCHEMA_SOURCES)) return undefined;
  return (uri) => generated.VALIDATORS[uri];
}

async function compiledVerdicts(schemas: LoadedSchema[]): Promise<VerdictSource> {
  const ajv = await createAjv(schemas.map((entry) => entry.schema));
  for (const entry of schemas) {
    try {
      ajv.addSchema(entry.schema, entry.uri);
    } catch (error) {
      throw new SynError(
        "schema_invalid",
        `Schema cannot be loaded: ${entry.path}: ${errorMessage(error)}`,
        { path: entry.path },
      );
    }
  }
  const compiled = new Map<string, VerdictFunction>();
  return (uri, name) => {
    let verdict = compiled.get(uri);
    if (!verdict) {
      try {
        verdict = ajv.getSchema(uri) as VerdictFunction | undefined;
      } catch (error) {
        throw new SynError(
          "schema_invalid",
          `Schema cannot be compiled: ${name}: ${errorMessage(error)}`,
          { schema: name },
        );
      }
      if (!verdict) throw new SynError("schema_invalid", `Schema cannot be compiled: ${name}`);
      compiled.set(uri, verdict);
    }
    return verdict;
  };
}

/**
 * Parses and indexes the schema files, sorted by (name, version, path) in code-point
 * order. MCP spec §8: a schema without `$id` gets its base URI from its file path.
 */
function indexSchemas(
  files: readonly SchemaFileText[],
  schemasDir: string,
  shown: string,
  index: SchemaIndex,
  embedded: boolean,
): LoadedSchema[] {
  const schemas: LoadedSchema[] = [];
  for (const file of files) {
    const name = schemaNameFromFile(file.name)!;
    const path = displayPath(shown, file.name);
    const schema = parseJson(file.text, path);
    if (!isRecord(schema)) {
      throw new SynError("schema_invalid", `Schema is not a JSON object: ${path}`, { path });
    }
    const fileUri = pathToFileUrl(joinPath(schemasDir, file.name)).href;
    let uri: string;
    try {
      // The embedded set is ours and known to load: its walk waits for a first reference.
      uri = index.add(schema, fileUri, { deferScan: embedded });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new SynError("schema_invalid", `Schema is nested too deeply to load: ${path}`, {
        path,
      });
    }
    schemas.push({ name, version: versionOf(schema), path, schema, uri });
  }
  return schemas.sort((a, b) =>
    compare(a.name, b.name) || compare(a.version, b.version) || compare(a.path, b.path)
  );
}

/** The example files, each with the schema it is an example of, sorted by (component, path). */
function loadExamples(
  examplesDir: string,
  shown: string,
  schemaOf: (document: unknown, stem: string) => string,
): LoadedExample[] {
  const examples: LoadedExample[] = [];
  for (const file of readExampleFiles(examplesDir)) {
    let document: unknown;
    try {
      document = JSON.parse(file.text);
    } catch {
      continue; // An example that is not JSON is not an example: it is left out of listings.
    }
    const stem = file.name.slice(file.name.lastIndexOf("/") + 1).replace(/\.json$/, "");
    examples.push({
      component: stem,
      path: displayPath(shown, file.name),
      relative: file.name,
      text: file.text,
      schema: schemaOf(document, stem),
    });
  }
  return examples.sort((a, b) => compare(a.component, b.component) || compare(a.path, b.path));
}

/** A store over the given folders (see `loadSchemaStore`, which shares the embedded one). */
export async function buildStore(options: LoadSchemaStoreOptions): Promise<SchemaStore> {
  const schemasDir = options.schemasDir ?? EMBEDDED_SCHEMAS;
  const examplesDir = options.examplesDir ?? EMBEDDED_EXAMPLES;
  const schemasShown = options.schemasDir ?? "schemas";
  const examplesShown = options.examplesDir ?? "schemas/examples";

  const files = readSchemaFiles(schemasDir);
  const embedded = options.schemasDir === undefined;
  const index = new SchemaIndex();
  const schemas = new SchemaNames(
    indexSchemas(files, schemasDir, schemasShown, index, embedded),
  );
  const validators = new Validators(
    schemas.entries,
    // Generated ahead of time for the embedded schemas only, and only while they match.
    () => embedded ? embeddedVerdicts(files) : undefined,
  );
  if (!options.deferCompile) await validators.ready();

  let loaded: LoadedExample[] | undefined;
  const examples = () =>
    loaded ??= loadExamples(
      examplesDir,
      examplesShown,
      (document, stem) =>
        schemas.fromMarker(document) ?? schemaNameFromStem(stem, schemas.names()) ??
          "synesthetic-asset",
    );
  if (!options.examplesOnFirstUse) examples();
  const validate = (asset: unknown, schemaName: string) =>
    validateAsset(asset, schemaName, { schemas, validators, index });
  return {
    ready: validators.ready,
    listSchemas: () => schemas.entries.map(({ name, version, path }) => ({ name, version, path })),
    getSchema(name) {
      const entry = schemas.find(name);
      if (!entry) return undefined;
      return { schema: structuredClone(entry.schema), version: entry.version };
    },
    hasSchema: (name) => schemas.find(name) !== undefined,
    listExamples: (component) => listExamples(examples(), component),
    getExample(path) {
      const entry = findExample(examples(), path);
      if (!entry) return undefined;
      return { example: JSON.parse(entry.text), schema: entry.schema };
    },
    validate,
    schemaFromMarker: (document) => schemas.fromMarker(document),
  };
}

/** The loaded schemas by name: the first of each name, aliases resolved. */
class SchemaNames {
  readonly #byName = new Map<string, LoadedSchema>();

  /** Sorted by (name, version, path). */
  constructor(readonly entries: readonly LoadedSchema[]) {
    for (const entry of entries) {
      if (!this.#byName.has(entry.name)) this.#byName.set(entry.name, entry);
    }
  }

  names(): IterableIterator<string> {
    return this.#byName.keys();
  }

  find(name: string): LoadedSchema | undefined {
    return this.#byName.get(canonicalName(name));
  }

  /** The schema a document's `$schema`/`$schemaRef` marker names, by URI or by name. */
  fromMarker(document: unknown): string | undefined {
    const marker = markerOf(document);
    if (marker === undefined) return undefined;
    for (const entry of this.entries) if (entry.uri === marker) return entry.name;
    const name = schemaNameFromMarker(marker);
    if (name === undefined) return undefined;
    const canonical = canonicalName(name);
    return this.#byName.has(canonical) ? canonical : undefined;
  }
}

function canonicalName(name: string): string {
  return Object.hasOwn(SCHEMA_ALIASES, name) ? SCHEMA_ALIASES[name] : name;
}

/**
 * The schemas' validators and ajv's formats, made on the first `ready()`: the embedded
 * ones when `embedded` gives them, otherwise compiled by ajv.
 */
class Validators {
  verdictFor: VerdictSource | undefined;
  formats: Readonly<Record<string, FormatDefinition>> = {};
  readonly #schemas: LoadedSchema[];
  readonly #embedded: () => Promise<VerdictSource | undefined> | undefined;
  readonly #uris: Set<string>;
  #compiled: Promise<void> | undefined;

  constructor(
    schemas: readonly LoadedSchema[],
    embedded: () => Promise<VerdictSource | undefined> | undefined,
  ) {
    this.#schemas = [...schemas];
    this.#embedded = embedded;
    this.#uris = new Set(schemas.map((entry) => entry.uri));
  }

  ready = (): Promise<void> => this.#compiled ??= this.#compile();

  async #compile(): Promise<void> {
    const source = await this.#embedded() ?? await compiledVerdicts(this.#schemas);
    // ajv-formats' formats, as embedded: no npm package on the start path.
    this.formats = (await import("./_generated/embedded_formats.js")).fullFormats;
    this.verdictFor = source;
  }

  /** The validator of a loaded schema's URI, for the explainer; none before `ready()`. */
  verdictOf = (uri: string): VerdictFunction | undefined => {
    if (!this.#uris.has(uri) || !this.verdictFor) return undefined;
    try {
      return this.verdictFor(uri, uri);
    } catch {
      return undefined;
    }
  };
}

/** Validates one document; issues come from the explainer, ajv's errors when it has none. */
function validateAsset(
  asset: unknown,
  schemaName: string,
  store: { schemas: SchemaNames; validators: Validators; index: SchemaIndex },
): ValidationResult {
  const { validators, index } = store;
  const entry = store.schemas.find(schemaName);
  if (!entry) {
    throw new SynError("not_found", `Unknown schema: ${schemaName}`, { schema: schemaName });
  }
  if (!validators.verdictFor) {
    throw new SynError("not_ready", "Schema validators are still compiling: await ready() first");
  }
  if (!prototypeUntouched()) return { ok: false, errors: [{ ...PROTOTYPE_MODIFIED_ISSUE }] };
  const document = dropMarker(asset);
  const verdict = validators.verdictFor(entry.uri, entry.name);
  try {
    if (verdict(document)) return { ok: true, errors: [] };
  } catch (error) {
    return { ok: false, errors: [{ path: "", msg: failureMessage(error) }] };
  }
  let errors: ValidationIssue[];
  try {
    errors = explainIssues(entry.schema, entry.uri, document, {
      index,
      formats: validators.formats,
      verdictOf: validators.verdictOf,
    });
  } catch (error) {
    if (error instanceof RangeError) {
      return { ok: false, errors: [{ path: "", msg: failureMessage(error) }] };
    }
    errors = [];
  }
  return { ok: false, errors: errors.length ? errors : issuesFromAjv(verdict.errors) };
}

/** The examples of a component, or of the schema it names; all for `undefined` or `"all"`. */
function listExamples(
  examples: readonly LoadedExample[],
  component: string | undefined,
): ExampleEntry[] {
  const wanted = component === undefined || component === "all" ? undefined : component;
  return examples
    .filter((entry) =>
      wanted === undefined || entry.component === wanted ||
      entry.schema === canonicalName(wanted)
    )
    .map(({ component, path }) => ({ component, path }));
}

/** An example by its displayed path, its path in the folder, or the end of that path. */
function findExample(examples: readonly LoadedExample[], path: string): LoadedExample | undefined {
  const wanted = path.replaceAll("\\", "/");
  return examples.find((candidate) => candidate.path === wanted) ??
    examples.find((candidate) => candidate.relative === wanted) ??
    examples.find((candidate) => candidate.relative.endsWith(`/${wanted}`));
}

/** Validation of hostile input answers instead of throwing: a too-deep document says so. */
function failureMessage(error: unknown): string {
  if (error instanceof RangeError) return "document is nested too deeply to validate";
  return `validator failed: ${errorMessage(error)}`;
}
