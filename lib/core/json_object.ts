/** A JSON object: not null, not an array. */
export type JsonRecord = Record<string, unknown>;

/**
 * Whether a value is a JSON-style object — not `null`, not an array. The one guard every
 * module asks before reading keys of untrusted input.
 */
export function isRecord(value: unknown): value is JsonRecord {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Sets an own enumerable data property, even one named `__proto__`: a plain assignment
 * to that key would change the prototype instead of adding the key `JSON.parse` gives
 * such documents.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    (target as JsonRecord)[key] = value;
  }
}

/** A shallow copy of an object's own enumerable keys, `__proto__` kept as a plain key. */
export function copyOwn(source: JsonRecord, skip?: (key: string) => boolean): JsonRecord {
  const copy: JsonRecord = {};
  for (const key of Object.keys(source)) {
    if (!skip?.(key)) setOwn(copy, key, source[key]);
  }
  return copy;
}
