import { buildStore, type LoadSchemaStoreOptions } from "./_schema_store.ts";
import type { SchemaStore } from "./types.ts";

export type { LoadSchemaStoreOptions };

/** The all-embedded stores, one per way of reading examples. */
const embeddedStores = new Map<boolean, Promise<SchemaStore>>();

/**
 * Reads schemas and examples once (MCP spec §2) and returns a store that lists, reads
 * and validates. `schemasDir`/`examplesDir` are the caller's `SYN_SCHEMAS_DIR` and
 * `SYN_EXAMPLES_DIR` values (the caller reads env); each one left out means the
 * embedded `schemas/` or `schemas/examples/`. A folder given but missing gives empty
 * listings and not-found reads (spec §2.3). The all-embedded store is loaded once per
 * process and shared.
 */
export function loadSchemaStore(options: LoadSchemaStoreOptions = {}): Promise<SchemaStore> {
  if (options.schemasDir === undefined && options.examplesDir === undefined) {
    const onFirstUse = options.examplesOnFirstUse === true;
    let store = embeddedStores.get(onFirstUse);
    if (!store) {
      store = buildStore({ examplesOnFirstUse: onFirstUse });
      embeddedStores.set(onFirstUse, store);
    }
    return store;
  }
  return buildStore(options);
}
