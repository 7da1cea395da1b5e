import { formatPointer, isRecord, setOwn } from "../core/mod.ts";

/**
 * A small description of the JSON a provider may send, used to check and coerce it:
 * unknown keys, wrong types and missing required fields become issues; numeric
 * strings become numbers where only a number fits.
 */
export type Shape =
  | { kind: "number"; min?: number; max?: number }
  | { kind: "integer" }
  | { kind: "string"; nonEmpty?: boolean }
  | { kind: "boolean" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "array"; items: Shape }
  | {
    kind: "object";
    fields: Readonly<Record<string, Shape>>;
    required?: readonly string[];
    /** Unknown keys allowed (their values are checked only as plain JSON). */
    open?: boolean;
    /** Unknown keys allowed, each value checked against this shape (a map). */
    values?: Shape;
  }
  | { kind: "nullable"; inner: Shape }
  /** The first option that fits without issues wins; issues of the closest are reported. */
  | { kind: "union"; options: readonly Shape[] }
  /** Any plain JSON value. */
  | { kind: "json" };

export interface ShapeIssue {
  path: string;
  msg: string;
}

export const s = {
  number: (bounds: { min?: number; max?: number } = {}): Shape => ({ kind: "number", ...bounds }),
  integer: (): Shape => ({ kind: "integer" }),
  string: (nonEmpty = false): Shape => ({ kind: "string", nonEmpty }),
  boolean: (): Shape => ({ kind: "boolean" }),
  enum: (values: readonly string[]): Shape => ({ kind: "enum", values }),
  array: (items: Shape): Shape => ({ kind: "array", items }),
  object: (
    fields: Record<string, Shape>,
    options: { required?: readonly string[]; open?: boolean; values?: Shape } = {},
  ): Shape => ({ kind: "object", fields, ...options }),
  nullable: (inner: Shape): Shape => ({ kind: "nullable", inner }),
  union: (...options: Shape[]): Shape => ({ kind: "union", options }),
  json: (): Shape => ({ kind: "json" }),
};

/** Deepest nesting accepted in free-form JSON from a provider. */
export const MAX_DEPTH = 48;

const NUMERIC = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Coerces a numeric string to a finite number; `undefined` when it is not one. */
export function numericString(value: unknown): number | undefined {
  if (typeof value !== "string" || !NUMERIC.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Checks `value` against `shape`, returning a coerced copy (never the input object)
 * and appending every problem to `issues` with an RFC 6901 pointer.
 */
export function conform(
  value: unknown,
  shape: Shape,
  issues: ShapeIssue[],
  path: (string | number)[] = [],
): unknown {
  const at = () => formatPointer(path);
  switch (shape.kind) {
    case "number":
    case "integer": {
      let number = typeof value === "number" ? value : numericString(value);
      if (number === undefined || !Number.isFinite(number)) {
        issues.push({ path: at(), msg: `expected a number, got ${typeName(value)}` });
        return value;
      }
      if (shape.kind === "integer" && !Number.isInteger(number)) {
        issues.push({ path: at(), msg: `expected an integer, got ${number}` });
        return number;
      }
      if (shape.kind === "number") {
        if (shape.min !== undefined && number < shape.min) {
          issues.push({ path: at(), msg: `must be >= ${shape.min}, got ${number}` });
        }
        if (shape.max !== undefined && number > shape.max) {
          issues.push({ path: at(), msg: `must be <= ${shape.max}, got ${number}` });
        }
      }
      number = Object.is(number, -0) ? 0 : number;
      return number;
    }
    case "string":
      if (typeof value !== "string") {
        issues.push({ path: at(), msg: `expected a string, got ${typeName(value)}` });
      } else if (shape.nonEmpty && value.trim() === "") {
        issues.push({ path: at(), msg: "must not be empty" });
      }
      return value;
    case "boolean":
      if (typeof value !== "boolean") {
        issues.push({ path: at(), msg: `expected a boolean, got ${typeName(value)}` });
      }
      return value;
    case "enum":
      if (typeof value !== "string" || !shape.values.includes(value)) {
        issues.push({
          path: at(),
          msg: `must be one of ${shape.values.join(", ")}, got ${JSON.stringify(value)}`,
        });
      }
      return value;
    case "nullable":
      return value === null ? null : conform(value, shape.inner, issues, path);
    case "array": {
      if (!Array.isArray(value)) {
        issues.push({ path: at(), msg: `expected an array, got ${typeName(value)}` });
        return value;
      }
      return value.map((item, index) => conform(item, shape.items, issues, [...path, index]));
    }
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        issues.push({ path: at(), msg: `expected an object, got ${typeName(value)}` });
        return value;
      }
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const key of shape.required ?? []) {
        if (!Object.hasOwn(record, key) || record[key] === undefined) {
          issues.push({ path: at(), msg: `missing required field '${key}'` });
        }
      }
      for (const [key, entry] of Object.entries(record)) {
        const fieldShape = Object.hasOwn(shape.fields, key) ? shape.fields[key] : undefined;
        if (fieldShape) {
          setOwn(out, key, conform(entry, fieldShape, issues, [...path, key]));
        } else if (shape.values) {
          setOwn(out, key, conform(entry, shape.values, issues, [...path, key]));
        } else if (shape.open) {
          setOwn(out, key, plainJson(entry, issues, [...path, key], path.length + 1));
        } else {
          issues.push({ path: at(), msg: `unknown field '${key}'` });
        }
      }
      return out;
    }
    case "union": {
      let best: { value: unknown; issues: ShapeIssue[] } | undefined;
      // Report against the branch of the value's own JSON type when there is one.
      const sameType = shape.options.filter((option) => sameJsonType(value, option));
      for (const option of sameType.length ? sameType : shape.options) {
        const local: ShapeIssue[] = [];
        const result = conform(value, option, local, path);
        if (local.length === 0) return result;
        if (!best || local.length < best.issues.length) best = { value: result, issues: local };
      }
      issues.push(...(best?.issues ?? []));
      return best?.value ?? value;
    }
    case "json":
      return plainJson(value, issues, path, path.length);
  }
}

/** A copy of free-form JSON, bounded in depth; non-finite numbers are refused. */
function plainJson(
  value: unknown,
  issues: ShapeIssue[],
  path: (string | number)[],
  depth: number,
): unknown {
  if (depth > MAX_DEPTH) {
    issues.push({ path: formatPointer(path), msg: `nested deeper than ${MAX_DEPTH} levels` });
    return null;
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    issues.push({ path: formatPointer(path), msg: "expected a finite number" });
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => plainJson(item, issues, [...path, index], depth + 1));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      setOwn(out, key, plainJson(entry, issues, [...path, key], depth + 1));
    }
    return out;
  }
  return value;
}

function sameJsonType(value: unknown, shape: Shape): boolean {
  switch (shape.kind) {
    case "number":
    case "integer":
      return typeof value === "number";
    case "string":
    case "enum":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    case "nullable":
      return value === null || sameJsonType(value, shape.inner);
    default:
      return true;
  }
}
