import baseline from "../../schemas/examples/canonical-baseline.json" with { type: "json" };
import type { SynestheticAsset } from "./asset.ts";

/**
 * The canonical baseline asset (`schemas/examples/canonical-baseline.json`), the
 * source of defaults for normalization: a fresh deep copy without its `$schema` marker.
 */
export function canonicalBaseline(): SynestheticAsset {
  const copy = structuredClone(baseline) as Record<string, unknown>;
  delete copy.$schema;
  delete copy.$schemaRef;
  return copy as unknown as SynestheticAsset;
}
