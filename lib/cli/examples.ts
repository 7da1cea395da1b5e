import { UsageError } from "../core/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn examples — list and read example assets

Usage:
  syn examples [list] [COMPONENT]   examples as {component, path}, sorted
  syn examples get PATH             one example as {ok, example, schema, validated}
  syn examples get PATH --raw       the example document alone, to save as a file

COMPONENT keeps the examples whose file stem is COMPONENT or whose schema is
COMPONENT (e.g. 'shader'); 'all' or nothing lists every example. PATH is a listed
path, a path inside the examples folder, or a file name. 'validated' says whether the
example is valid under its schema right now. Unknown paths print a message and exit 1.

Examples come from SYN_EXAMPLES_DIR when set, else those embedded in syn (listed as
schemas/examples/…, including canonical-baseline.json); they need no checkout.

Examples:
  syn examples
  syn examples list shader
  syn examples get canonical-baseline.json
  syn examples get canonical-baseline.json --raw > baseline.json
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("examples", args, {
    raw: { type: "boolean" },
  });
  const store = await storeFromEnv(io);
  const [action, argument, ...extra] = positionals;
  const listing = action === undefined || (action === "list" && extra.length === 0) ||
    (action !== "get" && action !== "list" && argument === undefined);
  if (listing) {
    const examples = store.listExamples(action === "list" ? argument : action);
    await io.stdout(JSON.stringify({ ok: true, examples }, null, 2) + "\n");
    return EXIT.ok;
  }
  if (action === "get" && argument !== undefined && extra.length === 0) {
    const found = store.getExample(argument);
    if (!found) {
      await io.stderr(`syn examples: no such example: ${argument}; see 'syn examples list'\n`);
      return EXIT.failure;
    }
    if (values.raw) {
      await io.stdout(JSON.stringify(found.example, null, 2) + "\n");
      return EXIT.ok;
    }
    const validated = store.hasSchema(found.schema) &&
      store.validate(found.example, found.schema).ok;
    const answer = { ok: true, example: found.example, schema: found.schema, validated };
    await io.stdout(JSON.stringify(answer, null, 2) + "\n");
    return EXIT.ok;
  }
  if (values.raw) throw new UsageError("--raw applies to 'get PATH' only");
  throw new UsageError(`expected 'list [COMPONENT]' or 'get PATH', got: ${positionals.join(" ")}`);
}
