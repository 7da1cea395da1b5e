import { canonicalJson, formatPointer } from "../core/mod.ts";

type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

/** Equal as JSON values, whatever the key order of objects. */
function sameJson(left: unknown, right: unknown): boolean {
  return canonicalJson(left) === canonicalJson(right);
}

/**
 * Checks a JSON value against the subset of JSON Schema an LLM answer needs: `type`
 * (string or list), `properties`, `required`, `additionalProperties` (boolean or schema),
 * `items`, `enum`, `const`, `minimum`/`maximum`, `minLength`/`maxLength`,
 * `minItems`/`maxItems`, `anyOf`. Other keywords are ignored (lib/llm must not depend on
 * lib/schema; callers wanting full validation pass `validateJson` in the request).
 * Returns one message per problem as `"<pointer>: <message>"`, empty when valid.
 */
export function validateJson(value: unknown, schema: Schema): string[] {
  const issues: string[] = [];
  check(value, schema, [], issues);
  return issues;
}

function check(value: unknown, schema: unknown, path: string[], issues: string[]): void {
  if (schema === true || schema === undefined) return;
  const at = formatPointer(path) || "/";
  if (schema === false) {
    issues.push(`${at}: no value is allowed here`);
    return;
  }
  if (schema === null || typeof schema !== "object") return;
  const rules = schema as Schema;

  if (rules.type !== undefined) {
    const types = Array.isArray(rules.type) ? rules.type as string[] : [rules.type as string];
    if (!types.some((type) => matchesType(value, type))) {
      issues.push(`${at}: expected ${types.join(" or ")}, got ${typeOf(value)}`);
      return;
    }
  }
  if (Array.isArray(rules.enum) && !rules.enum.some((option) => sameJson(option, value))) {
    issues.push(`${at}: must be one of ${JSON.stringify(rules.enum)}`);
  }
  if ("const" in rules && !sameJson(rules.const, value)) {
    issues.push(`${at}: must be ${JSON.stringify(rules.const)}`);
  }
  if (Array.isArray(rules.anyOf)) {
    const fits = rules.anyOf.some((option) => {
      const nested: string[] = [];
      check(value, option, path, nested);
      return nested.length === 0;
    });
    if (!fits) issues.push(`${at}: matches none of the allowed shapes`);
  }
  if (typeof value === "number") {
    if (typeof rules.minimum === "number" && value < rules.minimum) {
      issues.push(`${at}: must be >= ${rules.minimum}`);
    }
    if (typeof rules.maximum === "number" && value > rules.maximum) {
      issues.push(`${at}: must be <= ${rules.maximum}`);
    }
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof rules.minLength === "number" && length < rules.minLength) {
      issues.push(`${at}: must be at least ${rules.minLength} characters`);
    }
    if (typeof rules.maxLength === "number" && length > rules.maxLength) {
      issues.push(`${at}: must be at most ${rules.maxLength} characters`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof rules.minItems === "number" && value.length < rules.minItems) {
      issues.push(`${at}: must have at least ${rules.minItems} items`);
    }
    if (typeof rules.maxItems === "number" && value.length > rules.maxItems) {
      issues.push(`${at}: must have at most ${rules.maxItems} items`);
    }
    if (rules.items !== undefined && !Array.isArray(rules.items)) {
      value.forEach((item, index) => check(item, rules.items, [...path, String(index)], issues));
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (rules.properties ?? {}) as Record<string, unknown>;
    if (Array.isArray(rules.required)) {
      for (const name of rules.required as string[]) {
        if (!Object.hasOwn(record, name)) {
          issues.push(`${at}: missing required property ${JSON.stringify(name)}`);
        }
      }
    }
    for (const [name, entry] of Object.entries(record)) {
      if (Object.hasOwn(properties, name)) {
        check(entry, properties[name], [...path, name], issues);
      } else if (rules.additionalProperties === false) {
        issues.push(`${at}: unknown property ${JSON.stringify(name)}`);
      } else if (
        rules.additionalProperties !== undefined && rules.additionalProperties !== true
      ) {
        check(entry, rules.additionalProperties, [...path, name], issues);
      }
    }
  }
}
