/**
 * `syn mcp-proxy` in front of a fake MCP server written with the SDK
 * (`tests/fakes/fake_mcp_records.ts`): what passes through, what is recorded, and
 * validation by execution catching a wire that replay cannot.
 */
import assert from "node:assert/strict";
import { Client, InMemoryTransport, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { runMcpProxy } from "../lib/proxy/mod.ts";
import { openEventStore, SynthesizedRegistry } from "../lib/synthesize/mod.ts";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { type PipedCall, pipeToSyn } from "./fakes/mcp_shell_client.ts";

const FAKE = new URL("./fakes/fake_mcp_records.ts", import.meta.url).pathname;
const DENO = Deno.execPath();

function upstreamCommand(dataFile: string): string[] {
  return [DENO, "run", "-A", FAKE, dataFile];
}

async function writeData(file: string, sameOwner: boolean): Promise<void> {
  const records: Record<string, { id: string; owner: string }> = {};
  const bodies: Record<string, string> = { r9: "someone else entirely" };
  for (const [index, name] of ["alice", "bob", "carol", "dave", "erin"].entries()) {
    records[name] = { id: `r${index}`, owner: sameOwner ? `r${index}` : "r9" };
    bodies[`r${index}`] = `the body of ${name} number ${index}`;
  }
  await Deno.writeTextFile(file, JSON.stringify({ records, bodies }));
}

/** One client session through an in-process proxy (the upstream is a real child). */
async function throughProxy<T>(
  stateDir: string,
  dataFile: string,
  sessionId: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const [command, ...args] = upstreamCommand(dataFile);
  const lines: string[] = [];
  const proxy = runMcpProxy({
    upstream: { kind: "stdio", command, args, env: childEnv() },
    stateDir,
    allowWrites: false,
    secrets: [],
    report: (line) => lines.push(line),
    transport: serverSide,
    sessionId,
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  try {
    await client.connect(clientSide);
    return await use(client);
  } finally {
    await client.close();
    await proxy;
  }
}

Deno.test("syn mcp-proxy passes tools, errors, progress, resources and prompts through and records every call", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dataFile = `${dir}/data.json`;
    await writeData(dataFile, true);
    const transport = new StdioClientTransport({
      command: SELF_COMMAND[0],
      args: [
        ...SELF_COMMAND.slice(1),
        "mcp-proxy",
        "--state-dir",
        `${dir}/state`,
        "--",
        ...upstreamCommand(dataFile),
      ],
      env: childEnv(),
      stderr: "pipe",
    });
    const stderr = collectStream(transport.stderr);
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    try {
      await client.connect(transport);
      assert.equal(client.getServerVersion()?.name, "fake-records");
      assert.equal(client.getInstructions(), "Records by name.");
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [
        "append_note",
        "broken",
        "count_slowly",
        "find_record",
        "get_record",
      ]);
      const find = tools.find((tool) => tool.name === "find_record")!;
      assert.deepEqual(find.annotations, { readOnlyHint: true, openWorldHint: false });
      const found = await client.callTool({
        name: "find_record",
        arguments: { name: "alice", api_key: "sk-live-0123456789abcdef" },
      });
      assert.deepEqual(found.structuredContent, { id: "r0", owner: "r0" });
      const broken = await client.callTool({ name: "broken", arguments: {} });
      assert.equal(broken.isError, true);
      // A JSON-RPC error reaches the client as the upstream sent it.
      await assert.rejects(
        client.callTool({ name: "no_such_tool", arguments: {} }),
        (error) => error instanceof ProtocolError && error.code === -32602,
      );
      const progress: number[] = [];
      const counted = await client.callTool({ name: "count_slowly", arguments: { steps: 3 } }, {
        onprogress: (update) => progress.push(update.progress),
      });
      assert.deepEqual(counted.content, [{ type: "text", text: "counted 3" }]);
      assert.deepEqual(progress, [1, 2, 3]);
      const resource = await client.readResource({ uri: "records://all" });
      assert.match(String((resource.contents[0] as { text: string }).text), /alice/);
      const prompt = await client.getPrompt({ name: "summarize", arguments: { name: "bob" } });
      assert.deepEqual(prompt.messages[0].content, { type: "text", text: "Summarize bob" });
    } catch (error) {
      throw new Error(`proxy stderr:\n${stderr.text()}`, { cause: error });
    } finally {
      await client.close();
    }
    await using store = await openEventStore(`${dir}/state`, undefined);
    const [session] = await store.getSessions();
    const events = await store.getBySession(session.session_id);
    assert.deepEqual(
      events.map((event) => [event.tool_id, event.outcome]),
      [
        ["find_record", "SUCCESS"],
        ["broken", "FAILURE"],
        ["no_such_tool", "FAILURE"],
        ["count_slowly", "SUCCESS"],
      ],
    );
    assert.equal(events[0].output_summary, '{"id":"r0","owner":"r0"}');
    assert.deepEqual(events[0].input_params, { name: "alice", api_key: "***redacted***" });
    assert.equal(events[1].output_summary, "it broke");
    assert.match(events[2].output_summary ?? "", /^error: .*no_such_tool/);
    assert.ok(!stderr.text().includes("sk-live"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a wire from the wrong key passes replay and fails execution against the live upstream", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dataFile = `${dir}/data.json`;
    const stateDir = `${dir}/state`;
    // While recording, every record's owner equals its id: a wire from either key holds.
    await writeData(dataFile, true);
    const names = ["alice", "bob", "carol", "dave", "erin"];
    for (let session = 0; session < 10; session++) {
      await throughProxy(stateDir, dataFile, `session-${session}`, async (client) => {
        const name = names[session % names.length];
        const found = await client.callTool({ name: "find_record", arguments: { name } });
        const id = (found.structuredContent as { id: string }).id;
        await client.callTool({ name: "get_record", arguments: { id } });
      });
    }
    const run = await runSyn(["synthesize", "run", "--state-dir", stateDir, "--json"], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    const registry = new SynthesizedRegistry(stateDir);
    const [written] = (JSON.parse(run.stdout) as { tools: { tool: { tool_id: string } }[] })
      .tools;
    const base = (await registry.get(written.tool.tool_id))!.tool;
    const right = structuredClone(base);
    right.internal_wiring[0].from_key = "id";
    right.tool_id = `${base.tool_id}_by_id`;
    const wrong = structuredClone(base);
    wrong.internal_wiring[0].from_key = "owner";
    wrong.tool_id = `${base.tool_id}_by_owner`;
    await registry.saveDraft(right, "test");
    await registry.saveDraft(wrong, "test");
    // Now owners differ from ids: only execution can tell the two wires apart.
    await writeData(dataFile, false);
    const validate = (toolId: string) =>
      runSyn([
        "synthesize",
        "validate",
        toolId,
        "--state-dir",
        stateDir,
        "--json",
        "--execute",
        "--upstream",
        "--",
        ...upstreamCommand(dataFile),
      ], { cwd: dir });
    type Verdict = {
      status: string;
      validation: {
        passed: boolean;
        equivalence: { mean_similarity: number };
        execution: { mean_similarity: number; baseline: string };
      };
    };
    const good = await validate(right.tool_id);
    assert.equal(good.code, 0, good.stderr);
    const goodVerdict = JSON.parse(good.stdout) as Verdict;
    assert.ok(goodVerdict.validation.equivalence.mean_similarity > 0.999);
    assert.ok(goodVerdict.validation.execution.mean_similarity > 0.999);
    assert.equal(goodVerdict.validation.execution.baseline, "rerun");
    assert.equal(goodVerdict.status, "TESTING");
    const bad = await validate(wrong.tool_id);
    assert.equal(bad.code, 1, bad.stderr);
    const badVerdict = JSON.parse(bad.stdout) as Verdict;
    assert.ok(badVerdict.validation.equivalence.mean_similarity > 0.999, "replay passes");
    assert.ok(badVerdict.validation.execution.mean_similarity < 0.95, bad.stdout);
    assert.equal(badVerdict.validation.passed, false);
    assert.equal(badVerdict.status, "DRAFT");

    // The right one, promoted, is served through the proxy and runs through the upstream.
    await registry.promote(right.tool_id);
    await throughProxy(stateDir, dataFile, "served", async (client) => {
      const { tools } = await client.listTools();
      const served = tools.find((tool) => tool.name === `composite.${right.tool_id}`);
      assert.ok(served, tools.map((tool) => tool.name).join(", "));
      assert.equal(served.annotations?.readOnlyHint, true);
      assert.ok(!tools.some((tool) => tool.name === `composite.${wrong.tool_id}`));
      const result = await client.callTool({
        name: `composite.${right.tool_id}`,
        arguments: { name: "carol" },
      });
      const answer = result.structuredContent as {
        steps: { tool: string; ok: boolean; output: unknown }[];
        result: unknown;
      };
      assert.deepEqual(answer.result, { id: "r2", body: "the body of carol number 2" });
      assert.deepEqual(answer.steps.map((step) => [step.tool, step.ok]), [
        ["find_record", true],
        ["get_record", true],
      ]);
      assert.deepEqual(answer.steps[0].output, { id: "r2", owner: "r9" });
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A shell pipe's calls: all written at once, then the end of input, long before answers. */
const PIPED_CALLS: PipedCall[] = [
  { name: "fs.list_dir", arguments: { path: "." } },
  { name: "fs.read_text", arguments: { path: "notes.txt" } },
  { name: "fs.read_text", arguments: { path: "../outside.txt" } },
  { name: "no.such_tool", arguments: {} },
  { name: "fs.read_text", arguments: { path: "notes.txt" } },
  { name: "fs.list_dir", arguments: { path: "." } },
];

Deno.test("syn mcp-proxy driven by a shell pipe answers and records every call in flight when input ends", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_proxy_pipe_" }));
  try {
    await Deno.mkdir(`${dir}/root`);
    await Deno.writeTextFile(`${dir}/root/notes.txt`, "call Ada on monday");
    const run = await pipeToSyn(
      [
        "mcp-proxy",
        "--state-dir",
        `${dir}/state`,
        "--",
        ...SELF_COMMAND,
        "mcp-serve",
        "--tools",
        "--root",
        `${dir}/root`,
        "--state-dir",
        `${dir}/upstream-state`,
      ],
      PIPED_CALLS,
      { env: { MCP_READY_FILE: `${dir}/mcp.ready` }, cwd: dir },
    );
    const shown = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    assert.equal(run.code, 0, shown);
    assert.deepEqual([...run.answers.keys()].sort(), [0, 1, 2, 3, 4, 5, 6], shown);
    const text = (id: number) => JSON.stringify(run.answers.get(id));
    assert.match(text(2), /call Ada on monday/);
    assert.match(text(3), /path_escape/);
    assert.match(text(4), /no\.such_tool/);
    // Nothing went wrong on the way out: no recording failure, no write to a closed pipe.
    assert.deepEqual(
      run.stderr.split("\n").filter((line) => /error|warn|could not|not recorded/i.test(line)),
      [],
      shown,
    );
    await using store = await openEventStore(`${dir}/state`, undefined);
    const sessions = await store.getSessions();
    assert.equal(sessions.length, 1, shown);
    const events = await store.getBySession(sessions[0].session_id);
    assert.deepEqual(
      events.map((event) => [event.tool_id, event.outcome]).sort(),
      [
        ["fs.list_dir", "SUCCESS"],
        ["fs.list_dir", "SUCCESS"],
        ["fs.read_text", "FAILURE"],
        ["fs.read_text", "SUCCESS"],
        ["fs.read_text", "SUCCESS"],
        ["no.such_tool", "FAILURE"],
      ],
      shown,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
