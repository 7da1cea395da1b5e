import { resolve } from "node:path";
import { parseJson, SynError, UsageError } from "../core/mod.ts";
import { diff } from "../patch/mod.ts";
import { type CliIo, EXIT } from "./io.ts";
import { parseCommandArgs } from "./args.ts";

/** Documents larger than this are refused before they are read into memory or parsed. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export const help = `syn diff — the RFC 6902 JSON Patch that turns one JSON document into another

Usage:
  syn diff [options] <base> <new>

  <base>, <new>   JSON files; one of them may be "-" to read standard input

The patch is deterministic (MCP adapter spec §5): only add, remove and replace; arrays
are replaced whole; operations are sorted by path, then remove < add < replace. Equal
documents give [].

Options:
  --compact       print the patch on one line instead of indented
  -h, --help      show this help

Exit codes:
  0  the documents are equal (the patch is [])
  1  the documents differ (the patch is printed)
  2  bad usage, a file that cannot be read, or invalid JSON (file:line:column named)

Examples:
  syn diff before.json after.json
  syn diff --compact before.json after.json > change.patch.json
  cat after.json | syn diff before.json -
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("diff", args, {
    compact: { type: "boolean" },
  });
  if (positionals.length !== 2) {
    throw new UsageError(`expected two documents, <base> and <new>: got ${positionals.length}`);
  }
  const [baseName, nextName] = positionals;
  if (baseName === "-" && nextName === "-") {
    throw new UsageError(`only one of <base> and <new> can be "-" (standard input)`);
  }
  const base = await readDocument(baseName, io);
  const next = await readDocument(nextName, io);
  const patch = diff(base, next);
  const text = values.compact ? JSON.stringify(patch) : JSON.stringify(patch, null, 2);
  await io.stdout(text + "\n");
  return patch.length === 0 ? EXIT.ok : EXIT.failure;
}

/** Reads and parses one document; every failure is a `SynError` naming the source. */
async function readDocument(name: string, io: CliIo): Promise<unknown> {
  const source = name === "-" ? "<stdin>" : name;
  const bytes = name === "-" ? await readStdin(io) : await readFile(resolve(io.cwd, name), name);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SynError("io_error", `not valid UTF-8 text: ${source}`, { source });
  }
  return parseJson(text, source);
}

async function readFile(path: string, name: string): Promise<Uint8Array> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new SynError("io_error", `not a file: ${name}`, { source: name });
    if (info.size > MAX_INPUT_BYTES) throw tooLarge(name);
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof SynError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      throw new SynError("io_error", `file not found: ${name}`, { source: name });
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new SynError("io_error", `permission denied: ${name}`, { source: name });
    }
    throw new SynError("io_error", `cannot read file: ${name}`, { source: name });
  }
}

async function readStdin(io: CliIo): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of io.stdin) {
    total += chunk.length;
    if (total > MAX_INPUT_BYTES) throw tooLarge("<stdin>");
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function tooLarge(source: string): SynError {
  return new SynError(
    "io_error",
    `input is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB: ${source}`,
    { source, limit: MAX_INPUT_BYTES },
  );
}
