import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers and
 * strings as `JSON.stringify` writes them. Same value → same text, whatever key order.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) {
    return "[" + value.map((item) => canonicalJson(item)).join(",") + "]";
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    parts.push(JSON.stringify(key) + ":" + canonicalJson(record[key]));
  }
  return "{" + parts.join(",") + "}";
}

/** SHA-256 of a string (UTF-8) or bytes, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
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
