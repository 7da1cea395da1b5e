import { SynError, UsageError } from "../core/mod.ts";
import type { SchemaStore, ValidationIssue } from "../schema/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { expandArgument, type Input } from "./_document_arguments.ts";
import { readDocument } from "./_read_document.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn validate — check JSON documents against the Synesthetic 0.7.3 schemas

Usage:
  syn validate <file|folder|->... [--schema NAME]

Each argument is a JSON file, a folder (every *.json directly in it, sorted; symlinks
are followed, a broken one is reported) or '-' for standard input. Documents must be
UTF-8 (a byte order mark is fine) and at most 16 MiB.

The schema is --schema NAME, else the one the document's "$schema"/"$schemaRef"
marker names (e.g. "../shader.schema.json" → shader), else synesthetic-asset. The
marker itself is dropped before validating.

Output: for one file, a JSON object on stdout:
  {"file": "a.json", "schema": "synesthetic-asset", "ok": false,
   "errors": [{"path": "/shader", "msg": "must have required property 'fragment_shader'"}]}
Each error's path is an RFC 6901 pointer to the deepest failing value. For several
files (or a folder), {"ok", "valid", "invalid", "unreadable", "results": [...]} on
stdout and a summary line on stderr.

Exit codes: 0 all valid, 1 any invalid, 2 (even when others are invalid) an unreadable
file or invalid JSON (the message names file:line:column) or bad usage.

Options:
  --schema NAME   validate against NAME (see 'syn schemas list'; alias
                  nested-synesthetic-asset = synesthetic-asset)
  -h, --help      show this help

Environment:
  SYN_SCHEMAS_DIR   use the schema files in this folder instead of the embedded set

Examples:
  syn examples get canonical-baseline.json --raw > baseline.json
  syn validate baseline.json
  syn generate "a pulsing blue circle" --out my-assets/ > /dev/null
  syn validate my-assets/ --schema synesthetic-asset
  syn examples get tone-pluck.json --raw | syn validate - --schema tone
`;

/** Documents above this size are refused while reading, before parsing. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** The schema of a document with neither `--schema` nor a known marker. */
const DEFAULT_SCHEMA = "synesthetic-asset";

/** One file's outcome. */
export interface FileResult {
  file: string;
  schema?: string;
  ok: boolean;
  errors: ValidationIssue[];
  /** Set when the file could not be read or parsed. */
  error?: string;
}

async function validateInput(
  io: CliIo,
  store: SchemaStore,
  input: Input,
  schemaFlag: string | undefined,
): Promise<FileResult> {
  let document: unknown;
  try {
    if (input.problem !== undefined) throw new SynError("io_error", input.problem);
    document = await readDocument(io, input.shown, {
      stdinName: "-",
      maxBytes: MAX_DOCUMENT_BYTES,
    });
  } catch (error) {
    if (!(error instanceof SynError)) throw error;
    await io.stderr(`syn validate: ${error.message}\n`);
    return { file: input.shown, ok: false, errors: [], error: error.message };
  }
  const schema = schemaFlag ?? store.schemaFromMarker(document) ?? DEFAULT_SCHEMA;
  // Only the default can be unknown here (a SYN_SCHEMAS_DIR without it): a setup problem.
  if (!store.hasSchema(schema)) throw unknownSchema(io, store, schema);
  const result = store.validate(document, schema);
  return { file: input.shown, schema, ok: result.ok, errors: result.errors };
}

/** `unknown schema: x (known: …)`, saying where the schemas came from when none is known. */
function unknownSchema(io: CliIo, store: SchemaStore, name: string): UsageError {
  const known = store.listSchemas().map((entry) => entry.name);
  const folder = io.config.schemasDir;
  const none = folder ? `none in SYN_SCHEMAS_DIR=${folder}` : "none";
  return new UsageError(`unknown schema: ${name} (known: ${known.join(", ") || none})`);
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("validate", args, {
    schema: { type: "string" },
  });
  if (positionals.length === 0) {
    throw new UsageError("give at least one file, folder or '-' for standard input");
  }
  if (positionals.filter((argument) => argument === "-").length > 1) {
    throw new UsageError("standard input ('-') can be read only once");
  }
  const store = await storeFromEnv(io);
  const schemaFlag = values.schema;
  if (schemaFlag !== undefined && !store.hasSchema(schemaFlag)) {
    throw unknownSchema(io, store, schemaFlag);
  }

  const inputs: Input[] = [];
  for (const argument of positionals) inputs.push(...await expandArgument(io, argument));
  const results: FileResult[] = [];
  for (const input of inputs) results.push(await validateInput(io, store, input, schemaFlag));

  const unreadable = results.filter((result) => result.error !== undefined).length;
  const invalid = results.filter((result) => !result.ok && result.error === undefined).length;
  const valid = results.length - invalid - unreadable;
  // One argument that stood for itself (`-` too), not a folder holding one file.
  const single = positionals.length === 1 && inputs.length === 1 &&
    inputs[0].shown === positionals[0];
  if (single) {
    await io.stdout(JSON.stringify(results[0], null, 2) + "\n");
  } else {
    const summary = { ok: invalid === 0 && unreadable === 0, valid, invalid, unreadable, results };
    await io.stdout(JSON.stringify(summary, null, 2) + "\n");
    await io.stderr(`${valid} valid, ${invalid} invalid, ${unreadable} unreadable\n`);
  }
  if (unreadable > 0) return EXIT.usage;
  return invalid > 0 ? EXIT.failure : EXIT.ok;
}
