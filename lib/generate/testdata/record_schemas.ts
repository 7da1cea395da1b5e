import { loadSchemaStore, type SchemaStore } from "../../schema/mod.ts";

/** The Labs log record schemas of `schemas/records/`, loaded once. */
let store: Promise<SchemaStore> | undefined;
export function recordSchemas(): Promise<SchemaStore> {
  store ??= loadSchemaStore({
    schemasDir: new URL("../../../schemas/records", import.meta.url).pathname,
  });
  return store;
}
