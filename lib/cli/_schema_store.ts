import { resolvePath } from "../core/mod.ts";
import { loadSchemaStore, type SchemaStore } from "../schema/mod.ts";
import type { CliIo } from "./io.ts";

/**
 * The schema store for a command: `SYN_SCHEMAS_DIR`/`SYN_EXAMPLES_DIR` (MCP spec §2),
 * relative to the working directory, else the embedded `schemas/`. Empty values count
 * as unset. Examples are read when first listed.
 */
export function storeFromEnv(io: CliIo): Promise<SchemaStore> {
  const dir = (value: string | undefined) => value ? resolvePath(io.cwd, value) : undefined;
  return loadSchemaStore({
    schemasDir: dir(io.config.schemasDir),
    examplesDir: dir(io.config.examplesDir),
    // A command runs once: examples are read if it lists them, not at every start.
    examplesOnFirstUse: true,
  });
}
