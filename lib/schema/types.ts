/** One validation problem: an RFC 6901 pointer of the deepest failing instance and a message. */
export interface ValidationIssue {
  path: string;
  msg: string;
}

/** Validator answer: `errors` sorted by (path, msg), empty when `ok`. */
export interface ValidationResult {
  ok: boolean;
  errors: ValidationIssue[];
}

/** A schema as `list_schemas` shows it (MCP spec §4). */
export interface SchemaEntry {
  name: string;
  version: string;
  path: string;
}

/** An example as `list_examples` shows it (MCP spec §4). */
export interface ExampleEntry {
  component: string;
  path: string;
}

/**
 * Schemas and examples read once from their sources (MCP spec §2), with one validator
 * per schema. Every method is synchronous after loading and never throws on hostile
 * input to `validate`.
 */
export interface SchemaStore {
  /**
   * Resolves once `validate` can run. A store loaded with `deferCompile` lists and reads
   * at once and compiles its validators on the first call; anything else is ready when
   * loaded. Rejects with the compile error of a broken schema set.
   */
  ready(): Promise<void>;
  /** Sorted by name, then version, then path. */
  listSchemas(): SchemaEntry[];
  /** Resolves aliases (`nested-synesthetic-asset`); `undefined` when unknown. */
  getSchema(name: string): { schema: Record<string, unknown>; version: string } | undefined;
  /** True for known names and aliases. */
  hasSchema(name: string): boolean;
  /** `component` filter, or every example for `"all"`/undefined; sorted by component, path. */
  listExamples(component?: string): ExampleEntry[];
  /**
   * An example by its listed path or file name; `schema` is the schema name it declares
   * (from its `$schema`/`$schemaRef` marker, or inferred from the file name).
   */
  getExample(path: string): { example: unknown; schema: string } | undefined;
  /**
   * Validates against a schema (aliases resolved, a top-level `$schema`/`$schemaRef`
   * marker dropped first). Throws `SynError` with code `not_found` for an unknown schema,
   * or `schema_invalid` when a `SYN_SCHEMAS_DIR` schema cannot be compiled (a `$ref` to a
   * file that is not there); never for anything in `asset`.
   */
  validate(asset: unknown, schemaName: string): ValidationResult;
  /** The schema name an asset's marker names, if it names a known schema. */
  schemaFromMarker(asset: unknown): string | undefined;
}
