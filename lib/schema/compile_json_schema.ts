import { canonicalJson, errorMessage, SynError } from "../core/mod.ts";
import {
  createAjv,
  PROTOTYPE_MODIFIED_ISSUE,
  prototypeUntouched,
  type VerdictFunction,
} from "./_ajv.ts";
import { explainIssues, sortIssues } from "./_explain.ts";
import { SchemaIndex } from "./_schema_index.ts";
import type { ValidationIssue, ValidationResult } from "./types.ts";

/** A compiled validator for one standalone schema. Never throws on hostile input. */
export type JsonSchemaValidator = (value: unknown) => ValidationResult;

const BASE_URI = "urn:syn:standalone";

/**
 * The modules of validators generated ahead of time for the self-contained schemas that
 * start paths compile (`scripts/build_schema_validators.ts`): the validator service's
 * arguments (all a validator child's first request needs), the tools' arguments (all a
 * tool call needs), and the run-time record schemas.
 */
const GENERATED_MODULES: Record<PrecompiledGroup, () => Promise<PrecompiledModule>> = {
  service: () => import("./_generated/precompiled_service_schemas.js"),
  tools: () => import("./_generated/precompiled_tool_schemas.js"),
  records: () => import("./_generated/precompiled_record_schemas.js"),
};

/** Which generated module holds a schema, when the caller knows (see `compileJsonSchema`). */
export type PrecompiledGroup = "service" | "tools" | "records";

/** A generated module: validators keyed by their schema's canonical JSON. */
interface PrecompiledModule {
  PRECOMPILED: ReadonlyMap<string, VerdictFunction>;
}

/** Smallest first: each is loaded only when the ones before it lack the schema. */
const SEARCH_ORDER: readonly PrecompiledGroup[] = ["service", "tools", "records"];

/**
 * The validator generated ahead of time for exactly this schema, if there is one:
 * importing ajv and compiling costs tens of milliseconds, the generated module a fraction
 * of one. `first` is looked in before the others.
 */
async function precompiledVerdict(
  schema: Record<string, unknown>,
  first: PrecompiledGroup | undefined,
): Promise<VerdictFunction | undefined> {
  const key = canonicalJson(schema);
  const order = first ? [first, ...SEARCH_ORDER.filter((group) => group !== first)] : SEARCH_ORDER;
  for (const group of order) {
    const found = (await GENERATED_MODULES[group]()).PRECOMPILED.get(key);
    if (found) return found;
  }
  return undefined;
}

async function compiledVerdict(schema: Record<string, unknown>): Promise<VerdictFunction> {
  const ajv = await createAjv([schema]);
  try {
    return ajv.compile(schema) as VerdictFunction;
  } catch (error) {
    throw new SynError("schema_invalid", `Schema cannot be compiled: ${errorMessage(error)}`);
  }
}

/**
 * Compiles one self-contained JSON Schema (draft 2020-12, no external `$ref`s) with the
 * same ajv options and error explanation as the asset schemas, so every "is this valid"
 * question in syn has one answer and one error format. Used for tool arguments.
 * `lookFirstIn` names the generated module a caller's schemas are in (a tool registry's
 * `"tools"`): the others are then loaded only for a schema it lacks.
 * Throws `SynError` `schema_invalid` when ajv cannot compile the schema.
 */
export async function compileJsonSchema(
  schema: Record<string, unknown>,
  options: { lookFirstIn?: PrecompiledGroup } = {},
): Promise<JsonSchemaValidator> {
  const verdict = await precompiledVerdict(schema, options.lookFirstIn) ??
    await compiledVerdict(schema);
  const index = new SchemaIndex();
  // Walked when a failure is first explained: a valid call never needs it (and a schema
  // ajv could compile is one the walk can take; the explanation falls back on ajv's errors).
  const base = index.add(schema, BASE_URI, { deferScan: true });
  return (value) => {
    if (!prototypeUntouched()) return { ok: false, errors: [{ ...PROTOTYPE_MODIFIED_ISSUE }] };
    let ok: boolean;
    try {
      ok = verdict(value);
    } catch {
      return { ok: false, errors: [{ path: "", msg: "document is too deep to validate" }] };
    }
    if (ok) return { ok: true, errors: [] };
    let errors: ValidationIssue[];
    try {
      errors = explainIssues(schema, base, value, {
        index,
        formats: {},
        verdictOf: (uri) => (uri === base ? verdict : undefined),
      });
    } catch {
      errors = [];
    }
    if (!errors.length) {
      errors = sortIssues((verdict.errors ?? []).map((error) => ({
        path: error.instancePath,
        msg: error.message ?? `failed keyword ${error.keyword}`,
      })));
    }
    return {
      ok: false,
      errors: errors.length ? errors : [{ path: "", msg: "document is invalid" }],
    };
  };
}
