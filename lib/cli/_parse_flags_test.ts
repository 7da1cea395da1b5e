import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { parseFlags } from "./_parse_flags.ts";

const SPECS = {
  schema: { type: "string" },
  grant: { type: "string", multiple: true },
  compact: { type: "boolean" },
  verbose: { type: "boolean", multiple: true },
  file: { type: "string", short: "f" },
  all: { type: "boolean", short: "a" },
  help: { type: "boolean", short: "h" },
} as const;

/** Argument lists covering every path of `parseArgs`'s strict mode, good and bad. */
const CASES: string[][] = [
  [],
  ["a.json"],
  ["a.json", "-", "b.json"],
  ["--schema", "tone", "a.json"],
  ["--schema=tone", "a.json"],
  ["--schema=", "a.json"],
  ["--schema==x"],
  ["--schema"],
  ["--schema", "-1"],
  ["--schema", "-"],
  ["--schema=-1"],
  ["--schema", "--compact"],
  ["--grant", "fs.read", "--grant=net", "--grant", "shell"],
  ["--compact", "--compact"],
  ["--compact=yes"],
  ["--verbose", "--verbose"],
  ["--bogus"],
  ["--bogus", "value"],
  ["--bogus=value"],
  ["-x"],
  ["-h"],
  ["-ha"],
  ["-ah", "rest"],
  ["-f", "name"],
  ["-fname"],
  ["-f", "-1"],
  ["-f=x"],
  ["-af", "name"],
  ["-afname"],
  ["-f"],
  ["-hx"],
  ["--", "--schema", "-h"],
  ["a", "--", "--"],
  ["---x"],
  ["--=x"],
  ["--__proto__"],
  ["--schema", "a", "--schema", "b"],
  ["--help", "--schema", "s", "a", "b"],
];

function nodeOutcome(args: string[]): unknown {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: SPECS,
      strict: true,
      allowPositionals: true,
    });
    return { values: { ...values }, positionals };
  } catch (error) {
    return { message: (error as Error).message };
  }
}

function ownOutcome(args: string[]): unknown {
  try {
    const { values, positionals } = parseFlags(args, SPECS);
    return { values: { ...values }, positionals };
  } catch (error) {
    assert.ok(error instanceof TypeError);
    return { message: error.message };
  }
}

Deno.test("parseFlags() reads every case as node:util parseArgs does, messages included", () => {
  for (const args of CASES) {
    assert.deepEqual(ownOutcome(args), nodeOutcome(args), JSON.stringify(args));
  }
});

Deno.test("parseFlags() gives values without a prototype, as parseArgs does", () => {
  const { values } = parseFlags(["--compact"], SPECS);
  assert.equal(Object.getPrototypeOf(values), null);
  assert.equal("toString" in values, false);
});

Deno.test("parseFlags() types values by their flags", () => {
  const { values } = parseFlags(["--grant", "a", "--schema", "s"], SPECS);
  const grants: string[] | undefined = values.grant;
  const schema: string | undefined = values.schema;
  const compact: boolean | undefined = values.compact;
  assert.deepEqual([grants, schema, compact], [["a"], "s", undefined]);
});
