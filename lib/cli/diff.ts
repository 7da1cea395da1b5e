import { errorMessage, SynError, UsageError } from "../core/mod.ts";
import { diff } from "../patch/mod.ts";
import { type CliIo, EXIT } from "./io.ts";
import { parseCommandArgs } from "./args.ts";
import { readDocument } from "./_read_document.ts";

/** Documents larger than this are refused while reading, before parsing. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** Nesting deeper than this is refused before diffing: the diff and the output recurse. */
export const MAX_DIFF_DEPTH = 5_000;
/** More values than this (in either document) are refused: memory grows with them. */
export const MAX_DIFF_VALUES = 4_000_000;

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
  2  bad usage, a file that cannot be read, invalid JSON (file:line:column named), a
     document nested deeper than 5,000 levels or holding more than 4 million values, or
     any other failure to diff

Examples:
  echo '{"a": 1, "b": [1]}' > before.json && echo '{"a": 2, "b": [1, 2]}' > after.json
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
  checkSize(base, baseName);
  checkSize(next, nextName);
  let text: string;
  let changed: boolean;
  try {
    const patch = diff(base, next);
    changed = patch.length > 0;
    text = values.compact ? JSON.stringify(patch) : JSON.stringify(patch, null, 2);
  } catch (error) {
    // Exit 1 means "the documents differ": a failure to diff must never look like that.
    throw new SynError("diff_failed", `cannot diff these documents: ${errorMessage(error)}`);
  }
  await io.stdout(text + "\n");
  return changed ? EXIT.failure : EXIT.ok;
}

/** Refuses, with a clear message, a document too deep or too large to diff safely. */
function checkSize(document: unknown, name: string): void {
  const stack: [unknown, number][] = [[document, 1]];
  let values = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (++values > MAX_DIFF_VALUES) {
      throw new SynError(
        "too_large",
        `${name} has more than ${MAX_DIFF_VALUES} values; too large to diff`,
      );
    }
    if (depth > MAX_DIFF_DEPTH) {
      throw new SynError(
        "too_deep",
        `${name} nests deeper than ${MAX_DIFF_DEPTH} levels; too deep to diff`,
      );
    }
    if (value !== null && typeof value === "object") {
      for (const item of Object.values(value)) stack.push([item, depth + 1]);
    }
  }
}
