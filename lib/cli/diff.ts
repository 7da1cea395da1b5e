import { UsageError } from "../core/mod.ts";
import { diff } from "../patch/mod.ts";
import { type CliIo, EXIT } from "./io.ts";
import { parseCommandArgs } from "./args.ts";
import { readDocument } from "./_read_document.ts";

/** Documents larger than this are refused while reading, before parsing. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export const help = `syn diff — the RFC 6902 JSON Patch that turns one JSON document into another

Usage:
  syn diff [options] <base> <new>

  <base>, <new>   JSON files (UTF-8, at most 64 MiB each); one of them may be "-" to
                  read standard input

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
  const options = { stdinName: "<stdin>", maxBytes: MAX_INPUT_BYTES };
  const base = await readDocument(io, baseName, options);
  const next = await readDocument(io, nextName, options);
  const patch = diff(base, next);
  const text = values.compact ? JSON.stringify(patch) : JSON.stringify(patch, null, 2);
  await io.stdout(text + "\n");
  return patch.length === 0 ? EXIT.ok : EXIT.failure;
}
