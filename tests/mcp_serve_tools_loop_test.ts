/**
 * The loop for an MCP agent, end to end, with no ingest step: an official SDK client runs
 * sessions through `syn mcp-serve --tools --http` (list a folder, read an entry it found;
 * some sessions do a little more, a few fail); the server records every call; `syn
 * synthesize` mines the chain, writes the composite (deterministic engine), validates it
 * by executing it in the sandbox (`--execute --root`), and it is promoted; a new session
 * on the same running server finds `composite.<tool_id>` in `tools/list` and gets in one
 * call what the chain returned in two; the report counts the calls saved.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { openSqliteEventStore } from "../lib/synthesize/mod.ts";
import { runSyn } from "./fakes/cli_io.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";
import { waitUntil } from "./fakes/wait_until.ts";

const SESSIONS = 30;
const CHAIN = "fs.list_dir>fs.read_text";
const TOOL = "fs.list_dir-then-fs.read_text";
const FIRST_NOTE = "alpha: ship the release on friday";

type Structured = { ok: boolean; output: Record<string, unknown>; error: { code: string } | null };

/** One agent session: the chain, with some variation; returns how many calls it made. */
async function agentSession(client: Client, index: number): Promise<number> {
  let calls = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    calls++;
    const result = await client.callTool({ name, arguments: args });
    return result.structuredContent as Structured;
  };
  // A few sessions start with a read that fails: the file is not there.
  if (index % 10 === 3) assert.equal((await call("fs.read_text", { path: "todo.txt" })).ok, false);
  const listed = await call("fs.list_dir", {});
  const entries = listed.output.entries as { name: string; type: string }[];
  const read = await call("fs.read_text", { path: entries[0].name });
  assert.equal(read.output.text, FIRST_NOTE);
  // Some go on: another entry, or a program.
  if (index % 4 === 1) await call("fs.read_text", { path: entries[1].name });
  if (index % 7 === 2) await call("shell.exec", { cmd: "wc -l beta.txt" });
  return calls;
}

async function syn(cwd: string, args: string[]) {
  const result = await runSyn(args, { cwd });
  assert.equal(result.code, 0, `syn ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Waits (10 s at most) until the server has appended `count` events; more fails at once. */
async function eventsRecorded(state: string, count: number): Promise<void> {
  await waitUntil(
    async () => {
      const store = openSqliteEventStore(state);
      const { events } = await store.stats();
      await store.close();
      if (events > count) throw new Error(`expected ${count} recorded events, found ${events}`);
      return events === count;
    },
    `${count} recorded events`,
    { intervalMs: 50 },
  );
}

Deno.test({
  name:
    "mcp-serve --tools: ~30 recorded sessions → mine → synthesize → validate --execute → promote → composite in one call",
}, async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_mcp_loop_" }));
  const root = join(dir, "root");
  const state = join(dir, "state");
  await Deno.mkdir(root);
  await Deno.writeTextFile(join(root, "alpha.txt"), FIRST_NOTE);
  await Deno.writeTextFile(join(root, "beta.txt"), "beta: two\nlines\n");
  const server = await spawnHttpServer([
    "--tools",
    "--root",
    root,
    "--state-dir",
    state,
    "--http",
    "127.0.0.1:0",
  ]);
  try {
    let calls = 0;
    for (let index = 0; index < SESSIONS; index++) {
      const { client, transport } = await connectHttpClient(server.url, server.token);
      try {
        calls += await agentSession(client, index);
      } catch (error) {
        throw new Error(`session ${index}; server stderr:\n${server.stderr()}`, { cause: error });
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    }
    await eventsRecorded(state, calls);

    const mined = JSON.parse(
      await syn(dir, ["synthesize", "mine", "--state-dir", state, "--json"]),
    );
    const chain = mined.chains.find((found: { tools: string[] }) =>
      found.tools.join(">") === CHAIN
    );
    assert.ok(chain, JSON.stringify(mined.chains));
    assert.equal(chain.support, 1);
    const ran = JSON.parse(
      await syn(dir, ["synthesize", "run", CHAIN, "--state-dir", state, "--json"]),
    );
    assert.equal(ran.tools[0].tool.tool_id, TOOL);
    const validated = JSON.parse(
      await syn(dir, [
        "synthesize",
        "validate",
        TOOL,
        "--execute",
        "--root",
        root,
        "--state-dir",
        state,
        "--json",
      ]),
    );
    assert.equal(validated.validation.evidence, "execution", JSON.stringify(validated.validation));
    assert.deepEqual(validated.validation.execution.failures, []);
    await syn(dir, ["synthesize", "approve", TOOL, "--promote", "--state-dir", state]);

    // A new session on the same running server: the composite is there, and does the chain.
    const { client, transport } = await connectHttpClient(server.url, server.token);
    try {
      const { tools } = await client.listTools();
      const composite = tools.find((tool) => tool.name === `composite.${TOOL}`);
      assert.ok(composite, JSON.stringify(tools.map((tool) => tool.name)));
      assert.equal(composite.annotations?.readOnlyHint, true);
      assert.equal(composite.annotations?.openWorldHint, false);
      const result = await client.callTool({ name: `composite.${TOOL}`, arguments: {} });
      assert.equal(result.isError, false, JSON.stringify(result));
      const outcome = (result.structuredContent as Structured).output as {
        result: { text: string };
        steps: { tool: string; status: string; output: unknown }[];
      };
      assert.equal(outcome.result.text, FIRST_NOTE);
      assert.ok(JSON.stringify(outcome.steps[0].output).includes("alpha.txt"));
      assert.deepEqual(outcome.steps.map((step) => [step.tool, step.status]), [
        ["fs.list_dir", "ok"],
        ["fs.read_text", "ok"],
      ]);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    await eventsRecorded(state, calls + 1);

    const report = JSON.parse(
      await syn(dir, ["synthesize", "report", "--state-dir", state, "--json"]),
    );
    assert.equal(report.sessions, SESSIONS + 1);
    assert.equal(report.calls, calls + 1);
    assert.equal(report.rows[0].tool_id, TOOL);
    assert.equal(report.rows[0].sessions, SESSIONS);
    assert.equal(report.calls_saved, SESSIONS);
    console.log(
      `loop: ${SESSIONS} sessions, ${calls} calls recorded; ${chain.tools.join(" → ")} ` +
        `support ${chain.support}; execution similarity ` +
        `${validated.validation.execution.mean_similarity}; saved ${report.calls_saved} of ` +
        `${report.calls} calls (${(report.share_saved * 100).toFixed(1)} %)`,
    );
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
