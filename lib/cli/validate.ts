import { errorMessage, parseJson, SynError, UsageError } from "../core/mod.ts";
import type { SchemaStore, ValidationIssue } from "../schema/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn validate — check JSON documents against the Synesthetic 0.7.3 schemas

Usage:
  syn validate <file|folder|->... [--schema NAME]

Each argument is a JSON file, a folder (every *.json directly in it, sorted) or '-'
for standard input. The schema is --schema NAME, else the one the document's
"$schema"/"$schemaRef" marker names (e.g. "../shader.schema.json" → shader), else
synesthetic-asset. The marker itself is dropped before validating.

Output: for one file, a JSON object on stdout:
  {"file": "a.json", "schema": "synesthetic-asset", "ok": false,
   "errors": [{"path": "/shader", "msg": "must have required property 'fragment_shader'"}]}
Each error's path is an RFC 6901 pointer to the deepest failing value. For several
files (or a folder), {"ok", "valid", "invalid", "unreadable", "results": [...]} on
stdout and a summary line on stderr.

Exit codes: 0 all valid, 1 any invalid, 2 unreadable file or invalid JSON (the message
names file:line:column) or bad usage.

Options:
  --schema NAME   validate against NAME (see 'syn schemas list'; alias
                  nested-synesthetic-asset = synesthetic-asset)
  -h, --help      show this help

Environment:
  SYN_SCHEMAS_DIR   use the schema files in this folder instead of the embedded set

Examples:
  syn validate schemas/examples/canonical-baseline.json
  syn validate my-assets/ --schema synesthetic-asset
  cat tone.json | syn validate - --schema tone
`;

/** Documents above this size are refused before reading (a cap before parsing). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** One file's outcome. */
export interface FileResult {
  file: string;
  schema?: string;
  ok: boolean;
  errors: ValidationIssue[];
  /** Set when the file could not be read or parsed. */
  error?: string;
}

interface Input {
  /** As shown in results: the argument, or folder/name. */
  shown: string;
  /** Absolute path, or undefined for standard input. */
  path?: string;
}

function absolute(io: CliIo, path: string): string {
  return path.startsWith("/") ? path : `${io.cwd.replace(/\/+$/, "")}/${path}`;
}

async function expand(io: CliIo, argument: string): Promise<Input[]> {
  if (argument === "-") return [{ shown: "-" }];
  const path = absolute(io, argument);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    return [{ shown: argument, path }];
  }
  if (!info.isDirectory) return [{ shown: argument, path }];
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  names.sort();
  const prefix = argument.replace(/\/+$/, "");
  return names.map((name) => ({ shown: `${prefix}/${name}`, path: `${path}/${name}` }));
}

async function readInput(io: CliIo, input: Input): Promise<string> {
  if (input.path === undefined) {
    const bytes = new Uint8Array(await new Response(io.stdin).arrayBuffer());
    if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(input.shown);
    return new TextDecoder().decode(bytes);
  }
  try {
    const info = await Deno.stat(input.path);
    if (info.size > MAX_DOCUMENT_BYTES) throw tooLarge(input.shown);
    return await Deno.readTextFile(input.path);
  } catch (error) {
    if (error instanceof SynError) throw error;
    const reason = error instanceof Deno.errors.NotFound ? "no such file" : errorMessage(error);
    throw new SynError("io_error", `${input.shown}: cannot read: ${reason}`, {
      file: input.shown,
    });
  }
}

function tooLarge(shown: string): SynError {
  return new SynError("io_error", `${shown}: larger than ${MAX_DOCUMENT_BYTES} bytes`, {
    file: shown,
  });
}

async function validateInput(
  io: CliIo,
  store: SchemaStore,
  input: Input,
  schemaFlag: string | undefined,
): Promise<FileResult> {
  let document: unknown;
  try {
    document = parseJson(await readInput(io, input), input.shown);
  } catch (error) {
    const message = errorMessage(error);
    await io.stderr(`syn validate: ${message}\n`);
    return { file: input.shown, ok: false, errors: [], error: message };
  }
  const schema = schemaFlag ?? store.schemaFromMarker(document) ?? "synesthetic-asset";
  const result = store.validate(document, schema);
  return { file: input.shown, schema, ok: result.ok, errors: result.errors };
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
    const known = store.listSchemas().map((entry) => entry.name);
    throw new UsageError(
      `unknown schema: ${schemaFlag} (known: ${known.join(", ") || "none"})`,
    );
  }

  const inputs: Input[] = [];
  for (const argument of positionals) inputs.push(...await expand(io, argument));
  const results: FileResult[] = [];
  for (const input of inputs) results.push(await validateInput(io, store, input, schemaFlag));

  const unreadable = results.filter((result) => result.error !== undefined).length;
  const invalid = results.filter((result) => !result.ok && result.error === undefined).length;
  const valid = results.length - invalid - unreadable;
  const single = inputs.length === 1 && positionals.length === 1 &&
    (positionals[0] === "-" || inputs[0].shown === positionals[0]);
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
