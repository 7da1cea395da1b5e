import { SynError } from "../lib/core/mod.ts";
import type { SchemaStore, ValidationIssue } from "../lib/schema/mod.ts";

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://example.test/synesthetic-asset.schema.json",
  type: "object",
  properties: { name: { type: "string", minLength: 1 }, size: { type: "number" } },
  required: ["name"],
  additionalProperties: false,
};

const EXAMPLES: Record<string, { example: unknown; schema: string; component: string }> = {
  "examples/Thing_Example.json": {
    example: { $schema: "synesthetic-asset", name: "thing", size: 2 },
    schema: "synesthetic-asset",
    component: "Thing_Example",
  },
  "examples/Broken_Example.json": {
    example: { name: 7 },
    schema: "synesthetic-asset",
    component: "Broken_Example",
  },
};

/**
 * A small hand-written `SchemaStore` for unit tests of the service and transports: one
 * schema `synesthetic-asset` (object, `name` a non-empty string, optional numeric `size`,
 * nothing else) with the alias `nested-synesthetic-asset`, and two examples.
 */
export function fakeSchemaStore(): SchemaStore {
  const canonical = (name: string) =>
    name === "nested-synesthetic-asset" ? "synesthetic-asset" : name;
  return {
    ready: () => Promise.resolve(),
    listSchemas: () => [{ name: "synesthetic-asset", version: "0.7.3", path: "schemas/fake.json" }],
    getSchema: (name) =>
      canonical(name) === "synesthetic-asset"
        ? { schema: structuredClone(SCHEMA), version: "0.7.3" }
        : undefined,
    hasSchema: (name) => canonical(name) === "synesthetic-asset",
    listExamples: (component) =>
      Object.entries(EXAMPLES)
        .filter(([, entry]) => !component || entry.component === component)
        .map(([path, entry]) => ({ component: entry.component, path }))
        .sort((a, b) => a.component < b.component ? -1 : a.component > b.component ? 1 : 0),
    getExample: (path) => {
      const entry = EXAMPLES[path] ??
        Object.entries(EXAMPLES).find(([key]) => key.endsWith("/" + path))?.[1];
      return entry && { example: structuredClone(entry.example), schema: entry.schema };
    },
    validate(asset, schemaName) {
      if (canonical(schemaName) !== "synesthetic-asset") {
        throw new SynError("not_found", `Unknown schema: ${schemaName}`);
      }
      const errors: ValidationIssue[] = [];
      if (asset === null || typeof asset !== "object" || Array.isArray(asset)) {
        errors.push({ path: "", msg: "expected object" });
        return { ok: false, errors };
      }
      const record = { ...(asset as Record<string, unknown>) };
      delete record.$schema;
      delete record.$schemaRef;
      if (!("name" in record)) errors.push({ path: "", msg: "'name' is a required property" });
      else if (typeof record.name !== "string" || record.name === "") {
        errors.push({ path: "/name", msg: "expected non-empty string" });
      }
      if ("size" in record && typeof record.size !== "number") {
        errors.push({ path: "/size", msg: "expected number" });
      }
      for (const key of Object.keys(record)) {
        if (key !== "name" && key !== "size") {
          errors.push({ path: "", msg: `additional property '${key}' is not allowed` });
        }
      }
      errors.sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : a.msg < b.msg ? -1 : a.msg > b.msg ? 1 : 0
      );
      return { ok: errors.length === 0, errors };
    },
    schemaFromMarker(asset) {
      if (asset === null || typeof asset !== "object") return undefined;
      const marker = (asset as Record<string, unknown>).$schema ??
        (asset as Record<string, unknown>).$schemaRef;
      return typeof marker === "string" && marker.includes("synesthetic-asset")
        ? "synesthetic-asset"
        : undefined;
    },
  };
}
