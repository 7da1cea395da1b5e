/**
 * Regenerates the validator modules in `lib/schema/_generated/` ahead of time: the asset
 * schema set (`embedded_validators.js`, from `schemas/*.schema.json`), the self-contained
 * schemas start paths compile (`precompiled_service_schemas.js`: the validator service's
 * arguments; `precompiled_tool_schemas.js`: the tools' arguments;
 * `precompiled_record_schemas.js`: `schemas/records/`), ajv-formats' formats
 * (`embedded_formats.js`), and their types (`*.d.ts`):
 *
 *   deno run -A scripts/build_schema_validators.ts          # write the modules
 *   deno run -A scripts/build_schema_validators.ts --check  # exit 1 when one is stale
 *
 * Run it after editing any of those schemas or the tools' argument schemas;
 * `tests/schema_embedded_test.ts` fails until you do. Nothing else writes to that folder.
 */
import { generatedSchemaModules } from "./_generated_schema_modules.ts";

const root = new URL("../", import.meta.url);

if (import.meta.main) {
  let stale = false;
  for (const { path, source } of await generatedSchemaModules()) {
    const target = new URL(path, root);
    if (Deno.args.includes("--check")) {
      const current = await Deno.readTextFile(target).catch(() => "");
      if (current === source) console.log(`${path} is up to date`);
      else {
        console.error(`${path} is out of date: run this script`);
        stale = true;
      }
    } else {
      await Deno.writeTextFile(target, source);
      console.log(`wrote ${path} (${source.length} bytes)`);
    }
  }
  if (stale) Deno.exit(1);
}
