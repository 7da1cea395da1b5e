/**
 * @module
 * The schema layer: the Synesthetic 0.7.3 schema set (embedded from `schemas/`, or
 * from `SYN_SCHEMAS_DIR`/`SYN_EXAMPLES_DIR` folders), their examples, and validation
 * with ajv (draft 2020-12) that reports one issue per real problem as an RFC 6901
 * pointer of the deepest failing instance, sorted by (path, msg).
 *
 * ```ts
 * import { loadSchemaStore } from "./mod.ts";
 * const store = await loadSchemaStore();
 * store.validate({ name: "x", shader: { name: "s" } }, "synesthetic-asset");
 * // { ok: false, errors: [
 * //   { path: "/shader", msg: "must have required property 'fragment_shader'" },
 * //   { path: "/shader", msg: "must have required property 'vertex_shader'" } ] }
 * ```
 */
export type {
  ExampleEntry,
  SchemaEntry,
  SchemaStore,
  ValidationIssue,
  ValidationResult,
} from "./types.ts";
export { loadSchemaStore, type LoadSchemaStoreOptions } from "./load_schema_store.ts";
export { readSchemaFiles, type SchemaFileText } from "./schema_files.ts";
export { SCHEMA_ALIASES } from "./_names.ts";
export {
  compileJsonSchema,
  type JsonSchemaValidator,
  type PrecompiledGroup,
} from "./compile_json_schema.ts";
export {
  conformJson,
  type ConformOptions,
  type ConformResult,
  numericString,
} from "./conform_json.ts";
export {
  embeddedSchemaFiles,
  embeddedSchemaSet,
  type ResolvedSchema,
  type SchemaSet,
  schemaSetOf,
} from "./schema_set.ts";
