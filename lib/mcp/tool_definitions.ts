/** A tool as MCP `tools/list` shows it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

/**
 * Any JSON value, spelled as one `type` per branch: clients that check schema portability
 * (the MCP Inspector's `--strict`) flag both an empty schema and a `type` array.
 */
const ANY_JSON = {
  anyOf: ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type })),
};

const issue = {
  type: "object",
  properties: { path: { type: "string" }, msg: { type: "string" } },
  required: ["path", "msg"],
};

/** Members every failure may carry (MCP spec §6). */
const failure = {
  reason: {
    type: "string",
    enum: ["not_found", "validation_failed", "backend_error", "unsupported"],
  },
  errors: { type: "array", items: issue },
  status: { type: "integer" },
  detail: { type: "string" },
};

function output(properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: "object",
    properties: { ok: { type: "boolean" }, ...failure, ...properties },
    required: ["ok"],
  };
}

function input(
  properties: Record<string, unknown>,
  required: string[] = [],
): Record<string, unknown> {
  return { type: "object", properties, required };
}

/** The spec's tools (MCP spec §4), with JSON Schemas for their arguments and results. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = Object.freeze([
  {
    name: "list_schemas",
    title: "List schemas",
    description: "Lists the known JSON Schemas, sorted by name, version and path.",
    inputSchema: input({}),
    outputSchema: output({
      schemas: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            version: { type: "string" },
            path: { type: "string" },
          },
          required: ["name", "version", "path"],
        },
      },
    }),
  },
  {
    name: "get_schema",
    title: "Get a schema",
    description: "Returns one JSON Schema by name (aliases such as nested-synesthetic-asset work).",
    inputSchema: input({ name: { type: "string", description: "Schema name" } }, ["name"]),
    outputSchema: output({ schema: { type: "object" }, version: { type: "string" } }),
  },
  {
    name: "list_examples",
    title: "List examples",
    description: "Lists example assets for one component, or all of them, sorted.",
    inputSchema: input({
      component: { type: "string", description: 'A component name, or "all" (the default)' },
    }),
    outputSchema: output({
      examples: {
        type: "array",
        items: {
          type: "object",
          properties: { component: { type: "string" }, path: { type: "string" } },
          required: ["component", "path"],
        },
      },
    }),
  },
  {
    name: "get_example",
    title: "Get an example",
    description:
      "Returns one example asset by path or file name, with its schema name and whether it validates now.",
    inputSchema: input({ path: { type: "string" } }, ["path"]),
    outputSchema: output({
      example: { ...ANY_JSON, description: "The example asset as stored" },
      schema: { type: "string" },
      validated: { type: "boolean" },
    }),
  },
  {
    name: "validate_asset",
    title: "Validate an asset",
    description:
      "Validates an asset against a named schema (JSON Schema 2020-12). Errors are RFC 6901 pointers with messages, sorted.",
    inputSchema: input({
      asset: { ...ANY_JSON, description: "The asset (any JSON value)" },
      schema: { type: "string", description: "Schema name, e.g. synesthetic-asset" },
    }, ["asset", "schema"]),
    outputSchema: output({}),
  },
  {
    name: "diff_assets",
    title: "Diff two assets",
    description:
      "RFC 6902 patch (add, remove, replace; arrays replaced whole) that turns base into new.",
    inputSchema: input({
      base: { ...ANY_JSON, description: "The document before" },
      new: { ...ANY_JSON, description: "The document after" },
    }, ["base", "new"]),
    outputSchema: output({
      patch: {
        type: "array",
        items: {
          type: "object",
          properties: {
            op: { type: "string", enum: ["add", "remove", "replace"] },
            path: { type: "string" },
            value: ANY_JSON,
          },
          required: ["op", "path"],
        },
      },
    }),
  },
  {
    name: "populate_backend",
    title: "Post an asset to the backend",
    description:
      "Validates the asset (unless validate_first is false) and posts it to the configured backend.",
    inputSchema: input({
      asset: { type: "object" },
      validate_first: { type: "boolean", default: true },
      schema: {
        type: "string",
        description:
          "Schema to validate against (default: from the asset's marker, else synesthetic-asset)",
      },
    }, ["asset"]),
    outputSchema: output({ asset_id: { type: "string" }, backend_url: { type: "string" } }),
  },
]);

/**
 * Arguments a tool answers itself when they are missing, instead of refusing the call:
 * MCP spec §4 answers `validate_asset` without `schema` with a `validation_failed` result.
 */
const ANSWERED_WHEN_MISSING: Readonly<Record<string, readonly string[]>> = Object.freeze({
  validate_asset: ["schema"],
});

/** The arguments a call must carry: the definition's `required` the tool does not answer itself. */
export function requiredOf(definition: ToolDefinition): string[] {
  const answered = ANSWERED_WHEN_MISSING[definition.name] ?? [];
  return (definition.inputSchema.required as string[] | undefined ?? [])
    .filter((parameter) => !answered.includes(parameter));
}

/** The schema a tool's arguments are checked against: its `inputSchema`, as it is called. */
export function parameterSchemaOf(definition: ToolDefinition): Record<string, unknown> {
  return { ...definition.inputSchema, required: requiredOf(definition) };
}

/**
 * The argument schemas of every tool: `scripts/build_schema_validators.ts` precompiles them,
 * so the validator child answers its first request without importing ajv.
 */
export function toolParameterSchemas(): Record<string, unknown>[] {
  return TOOL_DEFINITIONS.map(parameterSchemaOf);
}
