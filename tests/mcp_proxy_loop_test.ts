/**
 * The whole loop with a real third-party MCP server, `@modelcontextprotocol/server-filesystem`
 * (installed into .tools/ by .ci/run; for a local run:
 * `npm install --prefix .tools @modelcontextprotocol/server-filesystem@2026.8.31`):
 * an agent written with the official SDK client works through `syn mcp-proxy` for 30
 * sessions; `syn synthesize` mines, synthesizes, validates by executing against the same
 * server, and promotes; a new session sees the composite and gets in one call what the
 * chain returned; the report counts what it saves.
 */
import assert from "node:assert/strict";
import { type CallToolResult, Client } from "@modelcontextprotocol/client";
import { stepOutput } from "../lib/proxy/mod.ts";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";

/** Where .ci/run installs it (.tools/mcp-servers/), or a local install into .tools/. */
const SERVER = [".tools/mcp-servers/", ".tools/"].map((prefix) =>
  new URL(
    `../${prefix}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`,
    import.meta.url,
  ).pathname
).find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

function nodeFound(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], env: childEnv(), clearEnv: true })
      .outputSync().success;
  } catch {
    return false;
  }
}

const SKIP = SERVER === undefined
  ? "server-filesystem is not in .tools/ (npm install --prefix .tools " +
    "@modelcontextprotocol/server-filesystem@2026.8.31)"
  : nodeFound()
  ? undefined
  : "no node on PATH";
if (SKIP) console.warn(`skipping the mcp-proxy loop test: ${SKIP}`);

const CHAIN = "search_files>read_text_file";

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };

/** One client session through a new `syn mcp-proxy` process. */
async function session<T>(
  stateDir: string,
  folder: string,
  use: (client: Client) => Promise<T>,
  client = new Client({ name: "test-agent", version: "1.0.0" }),
): Promise<T> {
  const transport = new StdioClientTransport({
    command: SELF_COMMAND[0],
    args: [
      ...SELF_COMMAND.slice(1),
      "mcp-proxy",
      "--state-dir",
      stateDir,
      "--",
      "node",
      SERVER!,
      folder,
    ],
    env: childEnv(),
    stderr: "pipe",
  });
  const stderr = collectStream(transport.stderr);
  try {
    await client.connect(transport);
    return await use(client);
  } catch (error) {
    throw new Error(`mcp-proxy stderr:\n${stderr.text()}`, { cause: error });
  } finally {
    await client.close();
  }
}

const textOf = (result: unknown) => (result as TextResult).content[0]?.text ?? "";

/** The agent's work in session `index`: find a note by pattern, read it; with variations. */
async function agentSession(client: Client, folder: string, index: number): Promise<void> {
  if (index % 3 === 0) {
    await client.callTool({ name: "list_directory", arguments: { path: folder } });
  }
  if (index % 7 === 3) {
    const missing = await client.callTool({
      name: "read_text_file",
      arguments: { path: `${folder}/missing-${index}.txt` },
    });
    assert.equal(missing.isError, true);
  }
  const found = await client.callTool({
    name: "search_files",
    arguments: { path: folder, pattern: `**/note-${index % 6}.txt` },
  });
  const path = textOf(found);
  const read = await client.callTool({ name: "read_text_file", arguments: { path } });
  assert.match(textOf(read), new RegExp(`note ${index % 6}`));
  if (index % 5 === 4) await client.callTool({ name: "get_file_info", arguments: { path } });
}

Deno.test({
  name: "an MCP agent's traffic through syn mcp-proxy becomes a promoted composite it can call",
  ignore: SKIP !== undefined,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      const folder = `${dir}/notes`;
      const stateDir = `${dir}/state`;
      await Deno.mkdir(`${folder}/sub`, { recursive: true });
      for (let note = 0; note < 6; note++) {
        const where = note % 2 ? `${folder}/sub` : folder;
        await Deno.writeTextFile(
          `${where}/note-${note}.txt`,
          `This is note ${note}: ${"x".repeat(note)}`,
        );
      }
      // 1. Thirty sessions, each a client connection to a new proxy process.
      for (let index = 0; index < 30; index++) {
        await session(stateDir, folder, (client) => agentSession(client, folder, index));
      }
      // 2. Mine, synthesize, validate by execution against the same server, promote.
      const syn = async (args: string[]) => {
        const result = await runSyn([
          "synthesize",
          args[0],
          "--state-dir",
          stateDir,
          ...args.slice(1),
        ], { cwd: dir });
        assert.ok(
          result.code === 0,
          `syn synthesize ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`,
        );
        return result.stdout;
      };
      const mined = JSON.parse(await syn(["mine", "--json"])) as { chains: { chain: string }[] };
      assert.ok(mined.chains.some((chain) => chain.chain === CHAIN), JSON.stringify(mined));
      const written = JSON.parse(await syn(["run", CHAIN, "--json"])) as {
        tools: { tool: { tool_id: string } }[];
      };
      const toolId = written.tools[0].tool.tool_id;
      const validated = JSON.parse(
        await syn([
          "validate",
          toolId,
          "--json",
          "--execute",
          "--upstream",
          "--",
          "node",
          SERVER!,
          folder,
        ]),
      ) as {
        status: string;
        validation: {
          evidence: string;
          sessions: string[];
          equivalence: { mean_similarity: number };
          execution: { mean_similarity: number; sessions: number; baseline: string };
        };
      };
      assert.equal(validated.validation.evidence, "execution");
      assert.equal(validated.validation.execution.baseline, "rerun");
      assert.ok(validated.validation.execution.mean_similarity > 0.999, JSON.stringify(validated));
      assert.equal(validated.status, "TESTING");
      console.log(
        `loop: 30 sessions; ${toolId}: replay ${
          validated.validation.equivalence.mean_similarity.toFixed(3)
        }, executed ${
          validated.validation.execution.mean_similarity.toFixed(3)
        } over ${validated.validation.execution.sessions} sessions`,
      );
      await syn(["approve", toolId, "--promote"]);

      // 3. A new session sees the composite and gets what the chain returned in one call.
      await session(stateDir, folder, async (client) => {
        const { tools } = await client.listTools();
        const composite = tools.find((tool) => tool.name === `composite.${toolId}`);
        assert.ok(composite, tools.map((tool) => tool.name).join(", "));
        assert.equal(composite.annotations?.readOnlyHint, true);
        const direct = await client.callTool({
          name: "read_text_file",
          arguments: { path: `${folder}/sub/note-3.txt` },
        });
        const one = await client.callTool({
          name: composite.name,
          arguments: { pattern: "**/note-3.txt" },
        });
        assert.equal(one.isError, undefined);
        // Every step comes back, and the last one is what the direct call returned.
        const served = one.structuredContent as {
          steps: { tool: string; ok: boolean; output: unknown }[];
          result: unknown;
        };
        assert.deepEqual(served.steps.map((step) => [step.tool, step.ok]), [
          ["search_files", true],
          ["read_text_file", true],
        ]);
        assert.deepEqual(served.result, stepOutput(direct as CallToolResult));
        assert.match(textOf(one as TextResult), /\[step 1: read_text_file — ok\]/);
      });

      // 4. The report on the recorded traffic.
      const report = JSON.parse(await syn(["report", "--json"])) as {
        sessions: number;
        calls: number;
        calls_saved: number;
      };
      assert.ok(report.sessions >= 31);
      assert.ok(report.calls_saved >= 30, JSON.stringify(report));
      console.log(
        `loop: report: ${report.calls_saved} of ${report.calls} calls (and round trips) saved`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a client that declares roots keeps them through syn mcp-proxy",
  ignore: SKIP !== undefined,
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.mkdir(`${dir}/cli-folder`);
      await Deno.mkdir(`${dir}/root-folder`);
      await Deno.writeTextFile(`${dir}/root-folder/only-in-root.txt`, "from the root");
      const client = new Client({ name: "rooted-agent", version: "1.0.0" }, {
        capabilities: { roots: { listChanged: true } },
      });
      client.setRequestHandler("roots/list", () => ({
        roots: [{ uri: `file://${dir}/root-folder`, name: "root" }],
      }));
      await session(`${dir}/state`, `${dir}/cli-folder`, async (client) => {
        // The server replaces its folders with the client's roots once it has asked for
        // them (after the handshake): retry a bounded number of times until it has.
        let result: TextResult | undefined;
        for (let attempt = 0; attempt < 100; attempt++) {
          result = await client.callTool({
            name: "list_directory",
            arguments: { path: `${dir}/root-folder` },
          }) as TextResult;
          if (!result.isError) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(result?.isError, undefined, JSON.stringify(result));
        assert.match(textOf(result), /only-in-root\.txt/);
      }, client);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
