import { formatPointer, isRecord, setOwn } from "../core/mod.ts";
import type { SchemaSet } from "./schema_set.ts";
import type { ValidationIssue } from "./types.ts";

/** Options of {@linkcode conformJson}. */
export interface ConformOptions {
  /**
   * Report missing required properties. Off for a first pass whose gaps the caller fills
   * afterwards (normalization fills from a baseline, then checks again with it on).
   */
  required?: boolean;
  /** Deepest nesting accepted; deeper values are an issue. Default 48. */
  maxDepth?: number;
}

/** What {@linkcode conformJson} made of a value. */
export interface ConformResult {
  /** A copy (never the input's objects) with numeric strings coerced where a number belongs. */
  value: unknown;
  /** Problems as RFC 6901 pointers, in document order; empty when the value conforms. */
  issues: ValidationIssue[];
}

type Path = (string | number)[];

interface Walk {
  set: SchemaSet;
  required: boolean;
  maxDepth: number;
  issues: ValidationIssue[];
  /** Where the walk is: one stack, pushed and popped around each member (no copy per node). */
  path: Path;
}

const NUMERIC = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * A numeric string (`" 0.75 "`, `"-1e-2"`) as its finite number; `undefined` for anything
 * else (hex, `+1`, `Infinity`, `1_000`, `""` are not numbers).
 */
export function numericString(value: unknown): number | undefined {
  if (typeof value !== "string" || !NUMERIC.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Walks `value` along the schema `schema.reference` names in `schema.set` (`$ref`s
 * resolved through it) and says what the schema makes of it: the value's kind (`type`, `enum`, `const`),
 * its keys (`properties`, `additionalProperties: false` closes an object, anything else
 * leaves it open) and, with `options.required`, the required ones; `anyOf`/`oneOf` take
 * the branch of the value's own JSON type. A numeric string becomes a number where the
 * schema takes a number and no string. Measures (lengths, bounds, formats, patterns) are
 * validation's to judge, not this walk's. Nothing in the value is resolved or fetched.
 */
export function conformJson(
  value: unknown,
  schema: { reference: string; set: SchemaSet },
  options: ConformOptions = {},
): ConformResult {
  const { reference, set } = schema;
  const walk: Walk = {
    set,
    required: options.required ?? false,
    maxDepth: options.maxDepth ?? 48,
    issues: [],
    path: [],
  };
  const root = set.resolve(reference);
  if (!root) return { value: plain(walk, value), issues: walk.issues };
  return { value: conform(walk, value, root.schema, root.base), issues: walk.issues };
}

function report(walk: Walk, msg: string): void {
  walk.issues.push({ path: formatPointer(walk.path), msg });
}

/** `step(value)` with `key` on the walk's path for the duration. */
function under<T>(walk: Walk, key: string | number, step: () => T): T {
  walk.path.push(key);
  try {
    return step();
  } finally {
    walk.path.pop();
  }
}

function conform(walk: Walk, value: unknown, schema: unknown, base: string): unknown {
  if (walk.path.length > walk.maxDepth) return tooDeep(walk, value);
  if (!isRecord(schema)) return plain(walk, value);
  let current = value;
  if (typeof schema.$ref === "string") {
    const target = walk.set.resolve(schema.$ref, base);
    current = target ? conform(walk, current, target.schema, target.base) : plain(walk, current);
  }
  if (Array.isArray(schema.anyOf)) current = conformBranch(walk, current, schema.anyOf, base);
  if (Array.isArray(schema.oneOf)) current = conformBranch(walk, current, schema.oneOf, base);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) current = conform(walk, current, part, base);
  }
  return conformOwn(walk, current, schema, base);
}

/** The keywords of one schema object itself: kind, then content. */
function conformOwn(
  walk: Walk,
  value: unknown,
  schema: Record<string, unknown>,
  base: string,
): unknown {
  const types = typesOf(schema);
  let current = value;
  if (types && !types.some((type) => hasType(current, type))) {
    const number = numericString(current);
    const coercible = number !== undefined && !types.includes("string") &&
      (types.includes("number") || (types.includes("integer") && Number.isInteger(number)));
    if (!coercible) {
      report(walk, `expected ${describeTypes(types)}, got ${jsonType(current)}`);
      return current;
    }
    current = number;
  }
  if (!allowedValue(walk, current, schema)) return current;
  if (isRecord(current)) return conformObject(walk, current, schema, base);
  if (Array.isArray(current)) return conformArray(walk, current, schema, base);
  return plain(walk, current);
}

function allowedValue(
  walk: Walk,
  value: unknown,
  schema: Record<string, unknown>,
): boolean {
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    const options = schema.enum.map((option) => String(option)).join(", ");
    report(walk, `must be one of ${options}, got ${JSON.stringify(value)}`);
    return false;
  }
  if (Object.hasOwn(schema, "const") && !sameJson(schema.const, value)) {
    report(walk, `must be ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
    return false;
  }
  return true;
}

function conformObject(
  walk: Walk,
  record: Record<string, unknown>,
  schema: Record<string, unknown>,
  base: string,
): Record<string, unknown> {
  if (walk.required && Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (!Object.hasOwn(record, key) || record[key] === undefined) {
        report(walk, `missing required field '${key}'`);
      }
    }
  }
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const additional = schema.additionalProperties;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const entry = record[key];
    if (Object.hasOwn(properties, key)) {
      setOwn(out, key, under(walk, key, () => conform(walk, entry, properties[key], base)));
    } else if (additional === false) {
      report(walk, `unknown field '${key}'`);
      // Kept: a later pass reports it again.
      setOwn(out, key, under(walk, key, () => plain(walk, entry)));
    } else {
      setOwn(out, key, under(walk, key, () => conform(walk, entry, additional, base)));
    }
  }
  return out;
}

function conformArray(
  walk: Walk,
  items: unknown[],
  schema: Record<string, unknown>,
  base: string,
): unknown[] {
  return items.map((item, index) =>
    under(walk, index, () => conform(walk, item, schema.items, base))
  );
}

/**
 * `anyOf`/`oneOf`: the first branch that fits without issues wins; otherwise the issues of
 * the closest branch of the value's own JSON type (or of any branch, when none has it).
 */
function conformBranch(
  walk: Walk,
  value: unknown,
  branches: unknown[],
  base: string,
): unknown {
  const ownType = branches.filter((branch) => branchTakes(walk, branch, base, value));
  let best: { value: unknown; issues: ValidationIssue[] } | undefined;
  for (const branch of ownType.length ? ownType : branches) {
    const local: Walk = { ...walk, issues: [] };
    const result = conform(local, value, branch, base);
    if (local.issues.length === 0) return result;
    if (!best || local.issues.length < best.issues.length) {
      best = { value: result, issues: local.issues };
    }
  }
  walk.issues.push(...(best?.issues ?? []));
  return best?.value ?? value;
}

/** Whether a branch's `type` (behind a `$ref`, if any) admits the value's JSON type. */
function branchTakes(walk: Walk, branch: unknown, base: string, value: unknown): boolean {
  let schema = branch;
  if (isRecord(schema) && typeof schema.$ref === "string") {
    schema = walk.set.resolve(schema.$ref, base)?.schema;
  }
  const types = isRecord(schema) ? typesOf(schema) : undefined;
  return types === undefined || types.some((type) => hasType(value, type));
}

/** Free-form JSON: copied, bounded in depth; non-finite numbers refused. */
function plain(walk: Walk, value: unknown): unknown {
  if (walk.path.length > walk.maxDepth) return tooDeep(walk, value);
  if (typeof value === "number" && !Number.isFinite(value)) {
    report(walk, "expected a finite number");
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => under(walk, index, () => plain(walk, item)));
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(out, key, under(walk, key, () => plain(walk, value[key])));
  }
  return out;
}

function tooDeep(walk: Walk, value: unknown): unknown {
  report(walk, `nested deeper than ${walk.maxDepth} levels`);
  return value;
}

function typesOf(schema: Record<string, unknown>): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type) => typeof type === "string");
  return undefined;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "object":
      return isRecord(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** `["number", "object", "null"]` → `a number or an object` (null is named only alone). */
function describeTypes(types: readonly string[]): string {
  const named = types.length > 1 ? types.filter((type) => type !== "null") : types;
  return named
    .map((type) => type === "null" ? type : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)
    .join(" or ");
}

function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || !left || !right) return false;
  return JSON.stringify(left) === JSON.stringify(right);
}
