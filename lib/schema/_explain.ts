/**
 * Explains why a document failed: walks schema and instance together (draft 2020-12
 * keywords) and reports one issue per real problem at the deepest failing instance.
 *
 * ajv decides validity (it is ~40× faster); this walker runs only on the failure path.
 * It exists because ajv's flat error list cannot say which `anyOf` branch an error
 * came from (errors from a `$ref`'d branch carry the referenced schema's paths), so
 * "report the non-null branch of `X | null`" needs a structural view.
 */
import { compareIssues, escapePointerToken, isRecord } from "../core/mod.ts";
import type { SchemaIndex } from "./_schema_index.ts";
import type { ValidationIssue } from "./types.ts";

type SchemaObject = Record<string, unknown>;

/** A format checker as ajv-formats defines one: a RegExp, a function or `{ validate, type }`. */
export type FormatDefinition =
  | RegExp
  | boolean
  | ((value: string) => boolean)
  | { validate: RegExp | ((value: string | number) => boolean); type?: string };

/** An issue plus, for a type mismatch, the types that were expected. */
interface Issue extends ValidationIssue {
  expected?: string[];
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    // As ajv with `strictNumbers`: Infinity (JSON.parse("1e400")) is not a number.
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return false;
  }
}

/** `["a", "b", "c"]` → `"a, b or c"`. */
function joinOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

function depthOf(pointer: string): number {
  let depth = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47) depth++;
  return depth;
}

function child(path: string, token: string | number): string {
  return `${path}/${escapePointerToken(token)}`;
}

function display(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value) ?? String(value);
}

/** True when every issue of a branch is a type mismatch of the instance itself. */
function isTypeMismatchOnly(issues: readonly Issue[], path: string): boolean {
  return issues.length > 0 && issues.every((issue) => issue.expected && issue.path === path);
}

/**
 * Chooses what to report when no branch of an `anyOf`/`oneOf` matched. Branches that
 * failed only because the instance has another type (the `null` of `X | null`) do not
 * apply; if none applies, one issue names every accepted type. Among applicable
 * branches, the one whose issues reach deepest into the instance wins (it matched the
 * most structure), then the one with fewest issues, then the first.
 */
function chooseBranch(branches: readonly Issue[][], path: string): Issue[] {
  const applicable = branches.filter((issues) => !isTypeMismatchOnly(issues, path));
  if (applicable.length === 0) {
    const types = [...new Set(branches.flatMap((issues) => issues.flatMap((i) => i.expected!)))];
    return [{ path, msg: `must be ${joinOr(types)}`, expected: types }];
  }
  let best = applicable[0];
  let bestDepth = maxDepth(best);
  for (const issues of applicable.slice(1)) {
    const depth = maxDepth(issues);
    if (depth > bestDepth || (depth === bestDepth && issues.length < best.length)) {
      best = issues;
      bestDepth = depth;
    }
  }
  return best;
}

class Explainer {
  constructor(
    readonly index: SchemaIndex,
    readonly formats: Readonly<Record<string, FormatDefinition>>,
    readonly verdictOf: (uri: string) => ((value: unknown) => boolean) | undefined,
  ) {}

  check(schema: unknown, base: string, value: unknown, path: string): Issue[] {
    if (schema === false) return [{ path, msg: "must not be present (schema is false)" }];
    if (!isRecord(schema)) return [];
    if (typeof schema.$id === "string") base = this.index.baseOf(schema.$id, base);
    const issues: Issue[] = [];

    for (const keyword of ["$ref", "$dynamicRef"] as const) {
      const reference = schema[keyword];
      if (typeof reference !== "string") continue;
      const target = this.index.resolve(reference, base);
      if (!target) continue;
      // A whole referenced resource that ajv accepts needs no walk: this keeps explaining
      // one broken section of an asset from costing a walk of every other section.
      if (target.root && this.verdictOf(target.base)?.(value)) continue;
      append(issues, this.check(target.schema, target.base, value, path));
    }

    if (schema.type !== undefined) {
      const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map(String);
      if (!types.some((type) => hasType(value, type))) {
        // Every other keyword describes a value of the right type: one problem, one issue.
        issues.push({ path, msg: `must be ${joinOr(types)}`, expected: types });
        return issues;
      }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
      const options = schema.enum.map(display).join(", ");
      issues.push({ path, msg: `must be equal to one of the allowed values: ${options}` });
    }
    if (Object.hasOwn(schema, "const") && !deepEqual(schema.const, value)) {
      issues.push({ path, msg: `must be equal to constant ${display(schema.const)}` });
    }

    if (typeof value === "string") this.#checkString(schema, value, path, issues);
    else if (typeof value === "number") this.#checkNumber(schema, value, path, issues);
    else if (Array.isArray(value)) this.#checkArray(schema, base, value, path, issues);
    else if (isRecord(value)) this.#checkObject(schema, base, value, path, issues);

    this.#checkApplicators(schema, base, value, path, issues);
    return issues;
  }

  #checkString(schema: SchemaObject, value: string, path: string, issues: Issue[]): void {
    if (typeof schema.minLength === "number" && codePointLength(value) < schema.minLength) {
      issues.push({ path, msg: `must NOT have fewer than ${schema.minLength} characters` });
    }
    if (typeof schema.maxLength === "number" && codePointLength(value) > schema.maxLength) {
      issues.push({ path, msg: `must NOT have more than ${schema.maxLength} characters` });
    }
    if (typeof schema.pattern === "string") {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(schema.pattern, "u");
      } catch {
        pattern = undefined;
      }
      if (pattern && !pattern.test(value)) {
        issues.push({ path, msg: `must match pattern "${schema.pattern}"` });
      }
    }
    this.#checkFormat(schema, value, "string", path, issues);
  }

  #checkFormat(
    schema: SchemaObject,
    value: string | number,
    type: string,
    path: string,
    issues: Issue[],
  ): void {
    if (typeof schema.format !== "string" || !Object.hasOwn(this.formats, schema.format)) return;
    const definition = this.formats[schema.format];
    let valid = true;
    if (definition instanceof RegExp) valid = type !== "string" || definition.test(String(value));
    else if (typeof definition === "function") {
      valid = type !== "string" || definition(String(value));
    } else if (isRecord(definition) && (definition.type ?? "string") === type) {
      const check = definition.validate;
      valid = check instanceof RegExp ? check.test(String(value)) : check(value);
    }
    if (!valid) issues.push({ path, msg: `must match format "${schema.format}"` });
  }

  #checkNumber(schema: SchemaObject, value: number, path: string, issues: Issue[]): void {
    const bounds: [string, string, (limit: number) => boolean][] = [
      ["minimum", ">=", (limit) => value >= limit],
      ["maximum", "<=", (limit) => value <= limit],
      ["exclusiveMinimum", ">", (limit) => value > limit],
      ["exclusiveMaximum", "<", (limit) => value < limit],
    ];
    for (const [keyword, operator, holds] of bounds) {
      const limit = schema[keyword];
      if (typeof limit === "number" && !holds(limit)) {
        issues.push({ path, msg: `must be ${operator} ${limit}` });
      }
    }
    const divisor = schema.multipleOf;
    if (typeof divisor === "number" && divisor > 0) {
      const quotient = value / divisor;
      if (!Number.isFinite(quotient) || Math.abs(quotient - Math.round(quotient)) > 1e-9) {
        issues.push({ path, msg: `must be multiple of ${divisor}` });
      }
    }
    this.#checkFormat(schema, value, "number", path, issues);
  }

  #checkArray(
    schema: SchemaObject,
    base: string,
    value: unknown[],
    path: string,
    issues: Issue[],
  ): void {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      issues.push({ path, msg: `must NOT have fewer than ${schema.minItems} items` });
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      issues.push({ path, msg: `must NOT have more than ${schema.maxItems} items` });
    }
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, index) => {
      const itemSchema = index < prefix.length ? prefix[index] : schema.items;
      if (itemSchema !== undefined) {
        append(issues, this.check(itemSchema, base, item, child(path, index)));
      }
    });
    if (schema.uniqueItems === true) {
      outer: for (let i = 1; i < value.length; i++) {
        for (let j = 0; j < i; j++) {
          if (deepEqual(value[i], value[j])) {
            issues.push({ path, msg: `must NOT have duplicate items (items ${j} and ${i})` });
            break outer;
          }
        }
      }
    }
    if (schema.contains !== undefined) {
      const matches = value.filter((item, index) =>
        this.check(schema.contains, base, item, child(path, index)).length === 0
      ).length;
      const min = typeof schema.minContains === "number" ? schema.minContains : 1;
      if (matches < min) {
        issues.push({ path, msg: `must contain at least ${min} valid item(s)` });
      }
      if (typeof schema.maxContains === "number" && matches > schema.maxContains) {
        issues.push({ path, msg: `must contain at most ${schema.maxContains} valid item(s)` });
      }
    }
  }

  #checkObject(
    schema: SchemaObject,
    base: string,
    value: SchemaObject,
    path: string,
    issues: Issue[],
  ): void {
    const keys = Object.keys(value);
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (typeof name === "string" && !Object.hasOwn(value, name)) {
          issues.push({ path, msg: `must have required property '${name}'` });
        }
      }
    }
    if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) {
      issues.push({ path, msg: `must NOT have fewer than ${schema.minProperties} properties` });
    }
    if (typeof schema.maxProperties === "number" && keys.length > schema.maxProperties) {
      issues.push({ path, msg: `must NOT have more than ${schema.maxProperties} properties` });
    }
    if (isRecord(schema.dependentRequired)) {
      for (const [trigger, needed] of Object.entries(schema.dependentRequired)) {
        if (!Object.hasOwn(value, trigger) || !Array.isArray(needed)) continue;
        for (const name of needed) {
          if (typeof name === "string" && !Object.hasOwn(value, name)) {
            issues.push({
              path,
              msg: `must have property '${name}' when property '${trigger}' is present`,
            });
          }
        }
      }
    }
    if (isRecord(schema.dependentSchemas)) {
      for (const [trigger, dependent] of Object.entries(schema.dependentSchemas)) {
        if (Object.hasOwn(value, trigger)) append(issues, this.check(dependent, base, value, path));
      }
    }
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const patterns: [RegExp, unknown][] = [];
    if (isRecord(schema.patternProperties)) {
      for (const [source, patternSchema] of Object.entries(schema.patternProperties)) {
        try {
          patterns.push([new RegExp(source, "u"), patternSchema]);
        } catch {
          // An invalid pattern cannot match; ajv refuses such a schema at compile time.
        }
      }
    }
    for (const key of keys) {
      const keyPath = child(path, key);
      let known = false;
      // Object.hasOwn: a `__proto__` key must not find Object.prototype as its schema.
      if (Object.hasOwn(properties, key)) {
        known = true;
        append(issues, this.check(properties[key], base, value[key], keyPath));
      }
      for (const [pattern, patternSchema] of patterns) {
        if (pattern.test(key)) {
          known = true;
          append(issues, this.check(patternSchema, base, value[key], keyPath));
        }
      }
      if (!known && schema.additionalProperties !== undefined) {
        if (schema.additionalProperties === false) {
          issues.push({ path, msg: `must NOT have additional property '${key}'` });
        } else {
          append(issues, this.check(schema.additionalProperties, base, value[key], keyPath));
        }
      }
      if (schema.propertyNames !== undefined) {
        const nameIssues = this.check(schema.propertyNames, base, key, path);
        if (nameIssues.length) issues.push({ path, msg: `property name '${key}' is invalid` });
      }
    }
  }

  #checkApplicators(
    schema: SchemaObject,
    base: string,
    value: unknown,
    path: string,
    issues: Issue[],
  ): void {
    if (Array.isArray(schema.allOf)) {
      for (const part of schema.allOf) append(issues, this.check(part, base, value, path));
    }
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf.map((branch) => this.check(branch, base, value, path));
      if (!branches.some((branchIssues) => branchIssues.length === 0)) {
        append(issues, chooseBranch(branches, path));
      }
    }
    if (Array.isArray(schema.oneOf)) {
      const branches = schema.oneOf.map((branch) => this.check(branch, base, value, path));
      const passing = branches.flatMap((branchIssues, index) => branchIssues.length ? [] : [index]);
      if (passing.length === 0) append(issues, chooseBranch(branches, path));
      else if (passing.length > 1) {
        issues.push({
          path,
          msg: `must match exactly one schema in oneOf (branches ${passing.join(" and ")} match)`,
        });
      }
    }
    if (schema.not !== undefined && this.check(schema.not, base, value, path).length === 0) {
      issues.push({ path, msg: "must NOT be valid against the schema in not" });
    }
    if (schema.if !== undefined) {
      const matched = this.check(schema.if, base, value, path).length === 0;
      const branch = matched ? schema.then : schema.else;
      if (branch !== undefined) append(issues, this.check(branch, base, value, path));
    }
  }
}

/**
 * Issues of `value` under `schema` (whose base URI is `base`), deduplicated and sorted
 * by (path, msg). Empty when the walker finds nothing (the caller then falls back on
 * ajv's own errors). Throws RangeError only when the document is too deep for the stack.
 */
export function explainIssues(
  schema: unknown,
  base: string,
  value: unknown,
  options: {
    index: SchemaIndex;
    formats: Readonly<Record<string, FormatDefinition>>;
    /** ajv's verdict for a whole resource by URI, when one is at hand. */
    verdictOf: (uri: string) => ((value: unknown) => boolean) | undefined;
  },
): ValidationIssue[] {
  const explainer = new Explainer(options.index, options.formats, options.verdictOf);
  const issues = explainer.check(schema, base, value, "");
  return sortIssues(issues.map(({ path, msg }) => ({ path, msg })));
}

/** Deduplicates and sorts by (path, msg) — MCP spec §5 — by code point, as the reference does. */
export function sortIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  const unique: ValidationIssue[] = [];
  for (const issue of issues) {
    const key = `${issue.path}\u0000${issue.msg}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push({ path: issue.path, msg: issue.msg });
  }
  return unique.sort(compareIssues((issue) => issue.msg));
}

/**
 * Appends in a loop: `push(...source)` passes every element as an argument and overflows
 * the stack for a source of ~100k issues (one per element of a long invalid array).
 */
function append<T>(target: T[], source: readonly T[]): void {
  for (const item of source) target.push(item);
}

/** The deepest issue path's depth, without spreading a long list into `Math.max`. */
function maxDepth(issues: readonly { path: string }[]): number {
  let deepest = -Infinity;
  for (const issue of issues) deepest = Math.max(deepest, depthOf(issue.path));
  return deepest;
}
