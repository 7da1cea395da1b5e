/**
 * Regenerates `lib/schema/_embedded_validators.js` from `schemas/*.schema.json`:
 *
 *   deno run -A scripts/build_schema_validators.ts          # write the module
 *   deno run -A scripts/build_schema_validators.ts --check  # exit 1 when it is stale
 *
 * Run it after editing any schema; `tests/schema_embedded_test.ts` fails until you do.
 */
import { fileURLToPath } from "node:url";
import { embeddedValidatorsSource, readSchemaFiles } from "../lib/schema/mod.ts";

const schemasDir = new URL("../schemas/", import.meta.url);
const target = new URL("../lib/schema/_embedded_validators.js", import.meta.url);

if (import.meta.main) {
  const source = await embeddedValidatorsSource(await readSchemaFiles(fileURLToPath(schemasDir)));
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(target).catch(() => "");
    if (current !== source) {
      console.error("lib/schema/_embedded_validators.js is out of date: run this script");
      Deno.exit(1);
    }
    console.log("lib/schema/_embedded_validators.js is up to date");
  } else {
    await Deno.writeTextFile(target, source);
    console.log(`wrote lib/schema/_embedded_validators.js (${source.length} bytes)`);
  }
}
