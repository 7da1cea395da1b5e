import { sha256 } from "./sha256.ts";

/** Text to write as it is, kept apart from the values still to serialize. */
class Literal {
  constructor(readonly text: string) {}
}
const OPEN_ARRAY = new Literal("[");
const CLOSE_ARRAY = new Literal("]");
const OPEN_OBJECT = new Literal("{");
const CLOSE_OBJECT = new Literal("}");
const COMMA = new Literal(",");

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers and
 * strings as `JSON.stringify` writes them. Same value → same text, whatever key order.
 * Members whose value is `undefined` are left out; `undefined` elsewhere is `null`.
 * Iterative (an explicit stack), so a document nested 100,000 levels deep is fine.
 */
export function canonicalJson(value: unknown): string {
  let text = "";
  // Work still to do, the next item last: values, and literals between them.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item instanceof Literal) {
      text += item.text;
    } else if (item === null || typeof item !== "object") {
      text += JSON.stringify(item) ?? "null";
    } else if (Array.isArray(item)) {
      pending.push(CLOSE_ARRAY);
      for (let index = item.length - 1; index >= 0; index--) {
        pending.push(item[index]);
        if (index > 0) pending.push(COMMA);
      }
      pending.push(OPEN_ARRAY);
    } else {
      const record = item as Record<string, unknown>;
      // RFC 8785 orders keys by UTF-16 code units (not code points): the default sort.
      const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
      pending.push(CLOSE_OBJECT);
      for (let index = keys.length - 1; index >= 0; index--) {
        pending.push(record[keys[index]]);
        pending.push(new Literal((index > 0 ? "," : "") + JSON.stringify(keys[index]) + ":"));
      }
      pending.push(OPEN_OBJECT);
    }
  }
  return text;
}

/** Every byte as two lowercase hex digits (made on first use, not at start-up). */
let hexBytes: string[] | undefined;

/** SHA-256 of a string (UTF-8) or bytes, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  const digest = sha256(data);
  hexBytes ??= Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
  // Joined once: a string grown byte by byte leaves a cons cell and two digit strings each.
  const digits = new Array<string>(digest.length);
  for (let index = 0; index < digest.length; index++) digits[index] = hexBytes[digest[index]];
  return digits.join("");
}

/**
 * Labs spec "Provenance & Redaction": SHA-256 of the canonicalized raw JSON, 16 hex chars.
 * A raw text that is not JSON is hashed as it is.
 */
export function responseHash(raw: unknown): string {
  if (typeof raw === "string") {
    try {
      return sha256Hex(canonicalJson(JSON.parse(raw))).slice(0, 16);
    } catch {
      return sha256Hex(raw).slice(0, 16);
    }
  }
  return sha256Hex(canonicalJson(raw)).slice(0, 16);
}
