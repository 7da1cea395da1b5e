/**
 * Drives `syn mcp-serve --stdio` with the official MCP Inspector CLI
 * (`npx -y @modelcontextprotocol/inspector@<version> --cli`), the way a user checks an MCP
 * server by hand: tools/list (with the Inspector's `--strict` schema portability check),
 * tools/call, resources/list, resources/read and resources/templates/list.
 *
 * Usage: `deno run -A scripts/check_mcp_inspector.ts [--version 2.12.0]`
 *
 * Needs `npx` and the npm registry (or an npm cache that holds the Inspector). Prints one
 * line per check and exits 0 when all pass, 1 when one fails, 2 when the Inspector cannot
 * be run at all. `tests/mcp_inspector_test.ts` runs it (and skips, saying why, when the
 * Inspector cannot be installed).
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const DEFAULT_VERSION = "2.12.0";
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Check {
  name: string;
  args: string[];
  /** The Inspector's exit code: 0, or 5 when a tool answers `isError: true`. */
  exitCode?: number;
  verify(output: Record<string, unknown>, run: Run): string | undefined;
}

async function inspector(version: string, readyFile: string, args: string[]): Promise<Run> {
  const output = await new Deno.Command("npx", {
    args: [
      "-y",
      `@modelcontextprotocol/inspector@${version}`,
      "--cli",
      "-e",
      `MCP_READY_FILE=${readyFile}`,
      ...serverEnv(),
      Deno.execPath(),
      "run",
      "-A",
      MAIN,
      "mcp-serve",
      "--stdio",
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * The Inspector starts the server with its own small default environment (no `DENO_DIR`):
 * pass this Deno's cache on, so the server finds the npm packages already there instead of
 * downloading them into another cache, and ask it for plain text.
 */
function serverEnv(): string[] {
  const denoDir = Deno.env.get("DENO_DIR");
  return ["-e", "NO_COLOR=1", ...(denoDir ? ["-e", `DENO_DIR=${denoDir}`] : [])];
}

/** The Inspector's arguments for `tools/call` of `tool` with `key=value` arguments. */
function toolCall(tool: string, ...toolArgs: string[]): string[] {
  return ["--method", "tools/call", "--tool-name", tool, "--tool-arg", ...toolArgs];
}

const CHECKS: Check[] = [
  {
    name: "tools/list --strict: 7 tools with input and output schemas, portable",
    args: ["--method", "tools/list", "--strict"],
    verify(output, run) {
      const tools = output.tools as {
        name: string;
        inputSchema?: unknown;
        outputSchema?: unknown;
      }[];
      if (tools?.length !== 7) return `expected 7 tools, got ${tools?.length}`;
      const bare = tools.filter((tool) => !tool.inputSchema || !tool.outputSchema);
      if (bare.length > 0) return `without schemas: ${bare.map((tool) => tool.name).join(", ")}`;
      if (/^(Warning|Error): tool/m.test(run.stderr)) return "portability findings on stderr";
    },
  },
  {
    name: "tools/call validate_asset (valid): structuredContent ok, isError false",
    args: toolCall("validate_asset", 'asset={"name":"demo"}', "schema=synesthetic-asset"),
    verify(output) {
      const structured = output.structuredContent as { ok?: boolean } | undefined;
      if (structured?.ok !== true || output.isError !== false) return JSON.stringify(output);
    },
  },
  {
    name: "tools/call validate_asset (invalid): isError true (Inspector exit 5), RFC 6901 paths",
    exitCode: 5,
    args: toolCall("validate_asset", 'asset={"name":5}', "schema=synesthetic-asset"),
    verify(output) {
      const structured = output.structuredContent as { errors?: { path: string }[] } | undefined;
      if (output.isError !== true) return "isError is not true";
      if (structured?.errors?.[0]?.path !== "/name") return JSON.stringify(structured);
    },
  },
  {
    name: "tools/call diff_assets: the RFC 6902 patch, with a text block",
    args: toolCall("diff_assets", 'base={"a":1}', 'new={"a":2}'),
    verify(output) {
      const expected = { ok: true, patch: [{ op: "replace", path: "/a", value: 2 }] };
      if (JSON.stringify(output.structuredContent) !== JSON.stringify(expected)) {
        return JSON.stringify(output.structuredContent);
      }
      const text = (output.content as { type: string; text: string }[])?.[0];
      if (text?.type !== "text" || text.text !== JSON.stringify(expected)) return "no text block";
    },
  },
  {
    name: "resources/list: schemas and examples",
    args: ["--method", "resources/list"],
    verify(output) {
      const uris = (output.resources as { uri: string }[] ?? []).map((resource) => resource.uri);
      if (!uris.includes("syn://schemas/synesthetic-asset")) return "no synesthetic-asset schema";
      if (!uris.some((uri) => uri.startsWith("syn://examples/"))) return "no examples";
    },
  },
  {
    name: "resources/read syn://schemas/synesthetic-asset",
    args: ["--method", "resources/read", "--uri", "syn://schemas/synesthetic-asset"],
    verify(output) {
      const text = (output.contents as { text?: string }[])?.[0]?.text ?? "";
      if (JSON.parse(text).type !== "object") return "not the schema";
    },
  },
  {
    name: "resources/read of an example (percent-encoded listed path)",
    args: [
      "--method",
      "resources/read",
      "--uri",
      "syn://examples/schemas%2Fexamples%2Fcanonical-baseline.json",
    ],
    verify(output) {
      const text = (output.contents as { text?: string }[])?.[0]?.text ?? "";
      if (typeof JSON.parse(text).name !== "string") return "not an asset";
    },
  },
  {
    name: "resources/templates/list: schemas and examples templates",
    args: ["--method", "resources/templates/list"],
    verify(output) {
      const templates = (output.resourceTemplates as { uriTemplate: string }[] ?? [])
        .map((template) => template.uriTemplate).sort();
      if (templates.join(" ") !== "syn://examples/{path} syn://schemas/{name}") {
        return templates.join(", ");
      }
    },
  },
];

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { version: { type: "string" } } });
  const version = values.version ?? DEFAULT_VERSION;
  const dir = await Deno.makeTempDir({ prefix: "syn_inspector_" });
  const readyFile = `${dir}/ready`;
  let failures = 0;
  try {
    console.log(`MCP Inspector CLI ${version} against syn mcp-serve --stdio`);
    for (const check of CHECKS) {
      let run: Run;
      try {
        run = await inspector(version, readyFile, check.args);
      } catch (error) {
        console.error(`cannot run npx: ${error instanceof Error ? error.message : error}`);
        return 2;
      }
      let problem: string | undefined;
      if (run.code !== (check.exitCode ?? 0)) {
        problem = `exit ${run.code}: ${run.stderr.trim().split("\n").slice(-3).join(" / ")}`;
        if (/E404|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT/.test(run.stderr)) {
          console.error(`the Inspector could not be installed: ${problem}`);
          return 2;
        }
      } else {
        try {
          problem = check.verify(JSON.parse(run.stdout), run);
        } catch (error) {
          problem = `unreadable output: ${error instanceof Error ? error.message : error}`;
        }
      }
      if (problem) failures++;
      console.log(`${problem ? "FAIL" : "ok  "} ${check.name}${problem ? `: ${problem}` : ""}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  console.log(`${CHECKS.length - failures} passed, ${failures} failed`);
  return failures === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main());
