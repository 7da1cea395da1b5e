import { canonicalJson, sha256Hex } from "../core/mod.ts";

/** The id of a patch (or any JSON value): 16 hex of SHA-256 over its canonical JSON. */
export function contentId(value: unknown): string {
  return sha256Hex(canonicalJson(value)).slice(0, 16);
}
