/** The syn release version (kept equal to deno.json's `version` by a test). */
export const VERSION = "0.1.0";
