import { UsageError } from "../core/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn schemas — list and read the asset schemas

Usage:
  syn schemas [list]       every schema as {name, version, path}, sorted
  syn schemas get NAME     one schema as {ok, schema, version}

Schemas come from SYN_SCHEMAS_DIR when set, else the set embedded in syn
(schemas/*.schema.json). nested-synesthetic-asset is an alias of synesthetic-asset.
A NAME that is not known prints a message and exits 1.

Examples:
  syn schemas
  syn schemas get shader
  SYN_SCHEMAS_DIR=../my-schemas syn schemas list
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommandArgs("schemas", args, {});
  const [action = "list", name, ...extra] = positionals;
  const store = await storeFromEnv(io);
  if (action === "list" && name === undefined) {
    await io.stdout(JSON.stringify({ ok: true, schemas: store.listSchemas() }, null, 2) + "\n");
    return EXIT.ok;
  }
  if (action === "get" && name !== undefined && extra.length === 0) {
    const found = store.getSchema(name);
    if (!found) {
      const known = store.listSchemas().map((entry) => entry.name).join(", ") || "none";
      await io.stderr(`syn schemas: unknown schema: ${name} (known: ${known})\n`);
      return EXIT.failure;
    }
    await io.stdout(JSON.stringify({ ok: true, ...found }, null, 2) + "\n");
    return EXIT.ok;
  }
  throw new UsageError(`expected 'list' or 'get NAME', got: ${positionals.join(" ")}`);
}
