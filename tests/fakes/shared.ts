/**
 * Access to the reference data in `../shared` (beside the repository root). A user's
 * clone has no `../shared`: tests that need it are ignored with a visible message.
 */
import { fileURLToPath } from "node:url";
const root = new URL("../../../shared/", import.meta.url);

/** Absolute path of a file or folder under `../shared`. */
export function sharedPath(relative: string): string {
  return fileURLToPath(new URL(relative, root)).replace(/\/$/, "");
}

/** True when a file, folder or link target exists at `path`. */
export function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const warned = new Set<string>();

/**
 * `true` when `../shared/<relative>` is missing; prints once why the tests that need it
 * are ignored. Use as `Deno.test({ ignore: sharedMissing("conformance/…"), … })`.
 */
export function sharedMissing(relative: string): boolean {
  const missing = !exists(sharedPath(relative));
  if (missing && !warned.has(relative)) {
    warned.add(relative);
    console.warn(
      `skipping: ../shared/${relative} is not present (reference data lives beside the repository)`,
    );
  }
  return missing;
}

/** The conformance schema set and examples. */
export const CONFORMANCE_SCHEMAS = "conformance/synesthetic-schemas-0.7.3/jsonschema";
export const CONFORMANCE_EXAMPLES = "conformance/synesthetic-schemas-0.7.3/examples";
export const CONFORMANCE_PUBLISHED_SCHEMAS = "conformance/synesthetic-schemas-0.7.3-published-ids";
export const CONFORMANCE_MCP = "conformance/synesthetic-mcp-0.2.3";
