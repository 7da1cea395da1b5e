import { isRecord, parseJson, SynError } from "../core/mod.ts";
import { EMBEDDED_SCHEMAS, readSchemaFiles } from "./schema_files.ts";
import { type ResolvedSchema, SchemaIndex } from "./_schema_index.ts";

/**
 * A schema set whose `$ref`s resolve synchronously, for walks over a schema's structure
 * (normalization reads what a schema allows without validating through ajv).
 */
export interface SchemaSet {
  /** The `$id` of a schema by its name (`shader` for `shader.schema.json`). */
  idOf(name: string): string | undefined;
  /** Resolves a `$ref` (absolute, or relative to `base`); `undefined` when it does not. */
  resolve(reference: string, base?: string): ResolvedSchema | undefined;
}

export type { ResolvedSchema };

let embeddedFiles: Readonly<Record<string, unknown>> | undefined;

/**
 * The embedded 0.7.3 set by file name, read once per process: the files the schema store
 * embeds (`schemas/*.json`). Read when first asked for, not imported as JSON modules: a
 * start that loads this layer and never walks a schema (validate, the validator child,
 * tools) would pay for nine more modules.
 */
export function embeddedSchemaFiles(): Readonly<Record<string, unknown>> {
  embeddedFiles ??= Object.freeze(Object.fromEntries(
    readSchemaFiles(EMBEDDED_SCHEMAS).map((file) => [
      file.name,
      parseJson(file.text, `schemas/${file.name}`),
    ]),
  ));
  return embeddedFiles;
}

/**
 * A schema set over the given schemas, keyed by their names. Each must carry an `$id`:
 * references between them resolve through it. Throws `SynError` `schema_invalid` otherwise.
 */
export function schemaSetOf(schemas: Readonly<Record<string, unknown>>): SchemaSet {
  const index = new SchemaIndex();
  const ids = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isRecord(schema) || typeof schema.$id !== "string") {
      throw new SynError("schema_invalid", `Schema has no $id: ${name}`, { schema: name });
    }
    ids.set(name.replace(/\.schema\.json$/, ""), index.add(schema, schema.$id));
  }
  return {
    idOf: (name) => ids.get(name),
    resolve: (reference, base = "urn:syn:schema-set") => index.resolve(reference, base),
  };
}

let embedded: SchemaSet | undefined;

/** The embedded schema set (`schemas/*.schema.json`), indexed once per process. */
export function embeddedSchemaSet(): SchemaSet {
  embedded ??= schemaSetOf(embeddedSchemaFiles());
  return embedded;
}
