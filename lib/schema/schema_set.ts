import controlBundle from "../../schemas/control-bundle.schema.json" with { type: "json" };
import control from "../../schemas/control.schema.json" with { type: "json" };
import haptic from "../../schemas/haptic.schema.json" with { type: "json" };
import modulation from "../../schemas/modulation.schema.json" with { type: "json" };
import ruleBundle from "../../schemas/rule-bundle.schema.json" with { type: "json" };
import rule from "../../schemas/rule.schema.json" with { type: "json" };
import shader from "../../schemas/shader.schema.json" with { type: "json" };
import synestheticAsset from "../../schemas/synesthetic-asset.schema.json" with { type: "json" };
import tone from "../../schemas/tone.schema.json" with { type: "json" };
import { isRecord, SynError } from "../core/mod.ts";
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

/** The embedded 0.7.3 set by file name: the same files the schema store embeds. */
export const EMBEDDED_SCHEMA_FILES: Readonly<Record<string, unknown>> = Object.freeze({
  "control-bundle.schema.json": controlBundle,
  "control.schema.json": control,
  "haptic.schema.json": haptic,
  "modulation.schema.json": modulation,
  "rule-bundle.schema.json": ruleBundle,
  "rule.schema.json": rule,
  "shader.schema.json": shader,
  "synesthetic-asset.schema.json": synestheticAsset,
  "tone.schema.json": tone,
});

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
  embedded ??= schemaSetOf(EMBEDDED_SCHEMA_FILES);
  return embedded;
}
