/** Schema and example naming rules shared by the store and the CLI. */

/**
 * Names that validate against another schema. MCP spec §9: `nested-synesthetic-asset`
 * validates against the canonical `synesthetic-asset`.
 */
export const SCHEMA_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  "nested-synesthetic-asset": "synesthetic-asset",
});

/** `shader.schema.json` → `shader`, `shader.json` → `shader`; `undefined` for other files. */
export function schemaNameFromFile(fileName: string): string | undefined {
  if (fileName.endsWith(".schema.json")) return fileName.slice(0, -".schema.json".length);
  if (fileName.endsWith(".json")) return fileName.slice(0, -".json".length);
  return undefined;
}

/** The last path segment of a marker or URI, without query or fragment. */
function lastSegment(reference: string): string {
  const bare = reference.replace(/[?#].*$/, "");
  return bare.slice(bare.lastIndexOf("/") + 1);
}

/**
 * The schema name a `$schema`/`$schemaRef` marker points at, by its file name:
 * `jsonschema/haptic.schema.json` → `haptic`, `../synesthetic-asset.schema.json` →
 * `synesthetic-asset`, `https://…/0.7.3/shader.schema.json` → `shader`.
 */
export function schemaNameFromMarker(marker: string): string | undefined {
  return schemaNameFromFile(lastSegment(marker));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Infers a schema name from an example's file stem when it carries no marker: the
 * longest known name the stem starts with (case-insensitive, hyphens optional), followed
 * by the end or a separator: `Haptic_Example` → `haptic`, `Control-Bundle_X` →
 * `control-bundle`, `SynestheticAsset_Example1` → `synesthetic-asset`, `shader-ring` →
 * `shader`; `ShaderLib_Example` matches nothing (`Lib` continues the word).
 */
export function schemaNameFromStem(stem: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const name of known) {
    const pattern = new RegExp(
      `^${name.split("-").map(escapeRegExp).join("-?")}(?:$|[-_.])`,
      "i",
    );
    if (pattern.test(stem) && (best === undefined || name.length > best.length)) best = name;
  }
  return best;
}
