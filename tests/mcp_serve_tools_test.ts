/**
 * `syn mcp-serve --tools`: syn's sandboxed tools through the official MCP SDK client, over
 * stdio and over Streamable HTTP with the bearer token; every call lands in the state
 * folder's event store, where `syn synthesize mine` finds it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { openSqliteEventStore } from "../lib/synthesize/mod.ts";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { fakeIo, runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";
import { pipeToSyn } from "./fakes/mcp_shell_client.ts";

const SECRET = "sk-live-secret-0123456789abcdef";

interface Folders {
  dir: string;
  root: string;
  state: string;
}

async function folders(): Promise<Folders> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_mcp_tools_" }));
  const root = join(dir, "root");
  await Deno.mkdir(join(root, "docs"), { recursive: true });
  await Deno.writeTextFile(join(root, "docs", "guide.md"), "how to use the guide");
  await Deno.writeTextFile(join(dir, "outside.txt"), "not for the client");
  return { dir, root, state: join(dir, "state") };
}

/** `mcp-serve --tools` on stdio behind the SDK's own stdio client transport. */
async function stdioClient(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: SELF_COMMAND[0],
    args: [...SELF_COMMAND.slice(1), "mcp-serve", "--tools", ...args],
    env: childEnv({ MCP_READY_FILE: `${args[args.indexOf("--state-dir") + 1]}.ready`, ...env }),
    stderr: "pipe",
  });
  const stderr = collectStream(transport.stderr);
  const client = new Client({ name: "syn-tools-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`mcp-serve --tools did not start; stderr:\n${stderr.text()}`, { cause: error });
  }
  return { client, stderr };
}

type Structured = { ok: boolean; output: Record<string, unknown>; error: { code: string } | null };

/** The calls both transports make, and what each must answer. */
async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  assert.deepEqual(
    [...byName.keys()],
    ["fs.list_dir", "fs.read_text", "fs.write_text", "http.get", "shell.exec"],
  );
  const read = byName.get("fs.read_text")!;
  assert.deepEqual(read.inputSchema.required, ["path"]);
  assert.equal(
    (read.inputSchema.properties as Record<string, { default?: number }>)
      .max_bytes.default,
    20000,
  );
  assert.deepEqual(read.annotations, {
    readOnlyHint: true,
    idempotentHint: true,
    openWorldHint: false,
  });
  assert.equal(byName.get("fs.write_text")!.annotations?.destructiveHint, true);
  assert.equal(byName.get("fs.write_text")!.annotations?.readOnlyHint, false);
  assert.equal(byName.get("shell.exec")!.annotations?.readOnlyHint, false);
  assert.equal(byName.get("http.get")!.annotations?.openWorldHint, true);

  const listed = await client.callTool({ name: "fs.list_dir", arguments: { path: "docs" } });
  assert.equal(listed.isError, false);
  const found = (listed.structuredContent as Structured).output.entries as { name: string }[];
  assert.deepEqual(found.map((entry) => entry.name), ["guide.md"]);
  const text = await client.callTool({
    name: "fs.read_text",
    arguments: { path: `docs/${found[0].name}` },
  });
  assert.equal(text.isError, false);
  const content = text.structuredContent as Structured;
  assert.equal(content.ok, true);
  assert.equal(content.output.text, "how to use the guide");
  assert.deepEqual(JSON.parse((text.content as { text: string }[])[0].text), content);

  const escape = await client.callTool({
    name: "fs.read_text",
    arguments: { path: "../outside.txt" },
  });
  assert.equal(escape.isError, true);
  assert.equal((escape.structuredContent as Structured).error?.code, "path_escape");
  assert.doesNotMatch(JSON.stringify(escape), /not for the client/);

  const network = await client.callTool({
    name: "http.get",
    arguments: { url: "http://127.0.0.1:9/" },
  });
  assert.equal(network.isError, true);
  assert.equal((network.structuredContent as Structured).error?.code, "capability_required");

  // Arguments are checked by the tool session, so a bad call is a result (and an event).
  const bad = await client.callTool({ name: "fs.write_text", arguments: { path: "n.txt" } });
  assert.equal(bad.isError, true);
  assert.equal((bad.structuredContent as Structured).error?.code, "invalid_args");

  const wrote = await client.callTool({
    name: "fs.write_text",
    arguments: { path: "notes/key.txt", text: `the key is ${SECRET}` },
  });
  assert.equal(wrote.isError, false, JSON.stringify(wrote));
}

/** The events the calls of `exercise` left, in order. */
async function recordedEvents(state: string) {
  const store = openSqliteEventStore(state);
  try {
    const sessions = await store.getSessions();
    assert.equal(sessions.length, 1, JSON.stringify(sessions));
    return {
      sessionId: sessions[0].session_id,
      events: await store.getBySession(sessions[0].session_id),
    };
  } finally {
    await store.close();
  }
}

function assertRecorded(events: Awaited<ReturnType<typeof recordedEvents>>["events"]): void {
  assert.deepEqual(
    events.map((event) => [event.tool_id, event.outcome]),
    [
      ["fs.list_dir", "SUCCESS"],
      ["fs.read_text", "SUCCESS"],
      ["fs.read_text", "FAILURE"],
      ["http.get", "FAILURE"],
      ["fs.write_text", "FAILURE"],
      ["fs.write_text", "SUCCESS"],
    ],
  );
  assert.deepEqual(events[1].input_params, { path: "docs/guide.md" });
  assert.match(events[1].output_summary!, /"text":"how to use the guide"/);
  assert.match(events[2].output_summary!, /"code":"path_escape"/);
  // The secret in the arguments (a provider key of the server's environment) is masked.
  assert.doesNotMatch(JSON.stringify(events), new RegExp(SECRET));
  assert.match(String(events[5].input_params.text), /^the key is \*\*\*redacted\*\*\*$/);
}

Deno.test({
  name:
    "mcp-serve --tools over stdio: SDK client lists and calls the sandboxed tools; calls become events mine sees",
}, async () => {
  const { dir, root, state } = await folders();
  try {
    const { client, stderr } = await stdioClient(
      ["--root", root, "--state-dir", state],
      { OPENAI_API_KEY: SECRET },
    );
    try {
      await exercise(client);
    } catch (error) {
      throw new Error(`stderr of mcp-serve --tools:\n${stderr.text()}`, { cause: error });
    } finally {
      await client.close();
    }
    const { events } = await recordedEvents(state);
    assertRecorded(events);
    assert.equal(
      await Deno.readTextFile(join(root, "notes", "key.txt")),
      `the key is ${SECRET}`,
      "the tool itself got the arguments as given",
    );
    const mined = await runSyn(["synthesize", "mine", "--state-dir", state, "--json"]);
    assert.equal(mined.code, 0, mined.stderr);
    const chains = JSON.parse(mined.stdout).chains as { tools: string[] }[];
    assert.ok(
      chains.some((chain) => chain.tools.join(">") === "fs.list_dir>fs.read_text"),
      mined.stdout,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "mcp-serve --tools --http: the token is required; a session's calls are recorded under its MCP session id",
}, async () => {
  const { dir, root, state } = await folders();
  const server = await spawnHttpServer(
    ["--tools", "--root", root, "--state-dir", state, "--http", "127.0.0.1:0"],
    { env: { OPENAI_API_KEY: SECRET } },
  );
  try {
    const refused = await fetch(server.url, { method: "POST", body: "{}" });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const { client, transport } = await connectHttpClient(server.url, server.token);
    const sessionId = transport.sessionId;
    assert.ok(sessionId);
    try {
      await exercise(client);
    } catch (error) {
      throw new Error(`stderr of mcp-serve --tools --http:\n${server.stderr()}`, { cause: error });
    } finally {
      await client.close();
    }
    const status = await server.stop();
    assert.equal(status.code, 0, server.stderr());
    const recorded = await recordedEvents(state);
    assert.equal(recorded.sessionId, sessionId);
    assertRecorded(recorded.events);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve --tools refuses what it cannot serve, before serving (exit 2)", async () => {
  const { dir, root } = await folders();
  const cases: [string[], RegExp][] = [
    [["--tools"], /--root <dir> is required/],
    [["--tools", "--root", join(dir, "missing")], /--root: Sandbox root does not exist/],
    [["--tools", "--root", root, "--tcp", "127.0.0.1:0"], /stdio and --http only/],
    [["--tools", "--root", root, "--grant", "Net all"], /not a capability: Net all/],
    [["--root", root], /--root needs --tools/],
  ];
  try {
    for (const [args, message] of cases) {
      const io = fakeIo({ cwd: dir });
      const code = await runCli(["mcp-serve", ...args], io, COMMANDS);
      assert.equal(code, 2, `${args.join(" ")}: ${io.err()}`);
      assert.match(io.err(), message);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve --tools driven by a shell pipe answers and records every call before it exits", async () => {
  const { dir, root, state } = await folders();
  try {
    const run = await pipeToSyn(
      ["mcp-serve", "--tools", "--root", root, "--state-dir", state],
      [
        { name: "fs.list_dir", arguments: { path: "docs" } },
        { name: "fs.read_text", arguments: { path: "docs/guide.md" } },
        { name: "fs.read_text", arguments: { path: "../outside.txt" } },
        { name: "fs.list_dir", arguments: { path: "." } },
        { name: "fs.read_text", arguments: { path: "docs/guide.md" } },
      ],
      { env: { MCP_READY_FILE: `${state}.ready` }, cwd: dir },
    );
    const shown = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    assert.equal(run.code, 0, shown);
    assert.deepEqual([...run.answers.keys()].sort(), [0, 1, 2, 3, 4, 5], shown);
    assert.match(JSON.stringify(run.answers.get(2)), /how to use the guide/);
    assert.match(JSON.stringify(run.answers.get(3)), /path_escape/);
    assert.deepEqual(
      run.stderr.split("\n").filter((line) => /error|warn|could not|not recorded/i.test(line)),
      [],
      shown,
    );
    const { events } = await recordedEvents(state);
    assert.deepEqual(
      events.map((event) => [event.tool_id, event.outcome]).sort(),
      [
        ["fs.list_dir", "SUCCESS"],
        ["fs.list_dir", "SUCCESS"],
        ["fs.read_text", "FAILURE"],
        ["fs.read_text", "SUCCESS"],
        ["fs.read_text", "SUCCESS"],
      ],
      shown,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
