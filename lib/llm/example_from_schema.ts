type Schema = Record<string, unknown>;

/**
 * A small deterministic value that fits a JSON Schema (the subset the answer validator
 * knows): `const`/`enum`/`default`/`examples` first, then a value of the first `type`
 * with every required property (and every listed one). Mocks use it as a plausible
 * answer to a JSON-schema request.
 */
export function exampleFromSchema(schema: unknown, depth = 0): unknown {
  if (schema === null || typeof schema !== "object" || depth > 12) return null;
  const rules = schema as Schema;
  if ("const" in rules) return rules.const;
  if (Array.isArray(rules.enum) && rules.enum.length > 0) return rules.enum[0];
  if ("default" in rules) return rules.default;
  if (Array.isArray(rules.examples) && rules.examples.length > 0) return rules.examples[0];
  if (Array.isArray(rules.anyOf) && rules.anyOf.length > 0) {
    return exampleFromSchema(rules.anyOf[0], depth + 1);
  }
  if (Array.isArray(rules.oneOf) && rules.oneOf.length > 0) {
    return exampleFromSchema(rules.oneOf[0], depth + 1);
  }
  const type = Array.isArray(rules.type) ? rules.type[0] : rules.type ??
    (rules.properties ? "object" : rules.items ? "array" : undefined);
  switch (type) {
    case "object": {
      const properties = (rules.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(properties)) {
        out[name] = exampleFromSchema(entry, depth + 1);
      }
      // A required name the schema does not list takes the schema for unlisted properties.
      for (const name of Array.isArray(rules.required) ? rules.required : []) {
        if (typeof name === "string" && !Object.hasOwn(out, name)) {
          out[name] = exampleFromSchema(rules.additionalProperties, depth + 1);
        }
      }
      return out;
    }
    case "array": {
      // Without an item schema an empty list is the only safe guess.
      if (rules.items === undefined || Array.isArray(rules.items)) return [];
      const count = typeof rules.minItems === "number" ? rules.minItems : 1;
      const items = rules.items;
      return Array.from({ length: count }, () => exampleFromSchema(items, depth + 1));
    }
    case "string": {
      const base = "example";
      const min = typeof rules.minLength === "number" ? rules.minLength : 0;
      const text = base.padEnd(min, "x");
      return typeof rules.maxLength === "number" ? text.slice(0, rules.maxLength) : text;
    }
    case "integer":
    case "number": {
      const minimum = typeof rules.minimum === "number" ? rules.minimum : undefined;
      const maximum = typeof rules.maximum === "number" ? rules.maximum : undefined;
      if (minimum !== undefined && maximum !== undefined) {
        const middle = (minimum + maximum) / 2;
        return type === "integer" ? Math.ceil(middle) : middle;
      }
      if (minimum !== undefined) return type === "integer" ? Math.ceil(minimum) : minimum;
      if (maximum !== undefined) {
        return type === "integer" ? Math.min(0, Math.floor(maximum)) : Math.min(0, maximum);
      }
      return 0;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return null;
  }
}
