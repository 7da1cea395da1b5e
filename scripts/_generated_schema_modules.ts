/**
 * The generated files of `lib/schema/_generated/` and what each is generated from, in one
 * place: `scripts/build_schema_validators.ts` writes them, `tests/schema_embedded_test.ts`
 * checks they are in sync with their sources.
 */
import { fileURLToPath } from "node:url";
import { readSchemaFiles } from "../lib/schema/mod.ts";
import {
  declarationSources,
  embeddedFormatsSource,
  embeddedValidatorsSource,
  precompiledSchemasSource,
} from "./_schema_validator_sources.ts";
import { toolParameterSchemas } from "../lib/mcp/mod.ts";
import { BASELINE_TOOLS } from "../lib/tools/mod.ts";
import { REGISTRY_ENTRY_SCHEMA } from "../lib/synthesize/mod.ts";

const root = new URL("../", import.meta.url);
/** The folder of the generated files, from the repository root. */
export const GENERATED_FOLDER = "lib/schema/_generated/";

/** A generated file: its path from the repository root and its source. */
export interface GeneratedModule {
  path: string;
  source: string;
}

/**
 * The record schemas `compileJsonSchema` meets at run time (`lib/synthesize`: every event
 * ingested, every tool loaded; `lib/chat`: every frame the gateway is sent, from its
 * start), and the envelope of a promoted tool's registry file (every registry read). The
 * Labs log record schemas are read by tests only.
 */
const RUN_TIME_RECORDS = [
  "chat-client-frame.schema.json",
  "synthesized-tool.schema.json",
  "tool-event.schema.json",
];

/**
 * The self-contained schemas `compileJsonSchema` meets when a command starts, in three
 * modules, each loaded only when needed (a caller names the one its schemas are in,
 * `lookFirstIn`; the others are tried after it, smallest first): the validator service's
 * tool arguments (the first request of every `mcp-serve`, `generate`'s child included),
 * the baseline tools' arguments (every `syn tools run`, every chat, `mcp-serve --tools`:
 * ~17 KB, where the record validators are ~94), and the run-time record schemas.
 */
function serviceStartSchemas(): Record<string, unknown>[] {
  return toolParameterSchemas();
}

function toolStartSchemas(): Record<string, unknown>[] {
  return BASELINE_TOOLS.map((tool) => tool.argsSchema);
}

function recordSchemas(): Record<string, unknown>[] {
  const records = readSchemaFiles(fileURLToPath(new URL("schemas/records/", root)));
  return [
    ...records.filter((file) => RUN_TIME_RECORDS.includes(file.name))
      .map((file) => JSON.parse(file.text)),
    { ...REGISTRY_ENTRY_SCHEMA },
  ];
}

/** Every schema of the precompiled modules. */
export function startPathSchemas(): Record<string, unknown>[] {
  return [...serviceStartSchemas(), ...toolStartSchemas(), ...recordSchemas()];
}

/** The installed ajv-formats `dist/formats.js`, found through `deno info`, and its name. */
async function ajvFormatsFile(): Promise<{ text: string; packageName: string }> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const specifier = `${config.imports["ajv-formats"]}/dist/formats.js`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", specifier],
    cwd: fileURLToPath(root),
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  if (code !== 0) throw new Error(`deno info ${specifier}: ${new TextDecoder().decode(stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(stdout));
  const found = Object.values(info.npmPackages as Record<string, Record<string, string>>)
    .find((entry) => entry.name === "ajv-formats");
  if (!found) throw new Error(`deno info ${specifier} names no ajv-formats package`);
  const text = await Deno.readTextFile(`${found.localPath}/dist/formats.js`);
  return { text, packageName: `ajv-formats@${found.version}` };
}

/**
 * Every file of `lib/schema/_generated/`, as its sources make it now: five modules and their
 * types.
 */
export async function generatedSchemaModules(): Promise<GeneratedModule[]> {
  const formats = await ajvFormatsFile();
  const sources: Record<string, string> = {
    "embedded_formats.js": embeddedFormatsSource(formats.text, formats.packageName),
    "embedded_validators.js": await embeddedValidatorsSource(
      readSchemaFiles(fileURLToPath(new URL("schemas/", root))),
    ),
    "precompiled_service_schemas.js": await precompiledSchemasSource(serviceStartSchemas()),
    "precompiled_tool_schemas.js": await precompiledSchemasSource(toolStartSchemas()),
    "precompiled_record_schemas.js": await precompiledSchemasSource(recordSchemas()),
    ...declarationSources(),
  };
  return Object.entries(sources).map(([name, source]) => ({
    path: GENERATED_FOLDER + name,
    source,
  }));
}
