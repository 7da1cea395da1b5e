/**
 * `syn mcp-proxy` over Streamable HTTP, both sides: serving its clients with `--http`
 * behind the edge (bearer token, one upstream connection per MCP session, calls recorded
 * under the MCP session id), and reaching an upstream on Streamable HTTP with
 * `--upstream-url` and an auth header whose value is never printed or recorded.
 */
import assert from "node:assert/strict";
import { Client, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { openEventStore, type StoredToolEvent } from "../lib/synthesize/mod.ts";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";

const FAKE = new URL("./fakes/fake_mcp_records.ts", import.meta.url).pathname;

async function eventsOf(stateDir: string): Promise<Map<string, StoredToolEvent[]>> {
  await using store = await openEventStore(stateDir, undefined);
  const bySession = new Map<string, StoredToolEvent[]>();
  for (const session of await store.getSessions()) {
    bySession.set(session.session_id, await store.getBySession(session.session_id));
  }
  return bySession;
}

Deno.test({
  name:
    "mcp-proxy --http: the token is required; each MCP session is served and recorded under its own id",
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_http_" });
  const dataFile = `${dir}/data.json`;
  await Deno.writeTextFile(
    dataFile,
    JSON.stringify({
      records: { alice: { id: "r0", owner: "r0" }, bob: { id: "r1", owner: "r1" } },
      bodies: {},
    }),
  );
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--state-dir",
      `${dir}/state`,
      "--",
      Deno.execPath(),
      "run",
      "-A",
      FAKE,
      dataFile,
    ],
    { command: "mcp-proxy" },
  );
  try {
    assert.ok(proxy.token, proxy.stderr());
    const refused = await fetch(proxy.url, { method: "POST", body: "{}" });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const sessions: string[] = [];
    for (const name of ["alice", "bob"]) {
      const { client, transport } = await connectHttpClient(proxy.url, proxy.token);
      try {
        assert.equal(client.getServerVersion()?.name, "fake-records");
        const found = await client.callTool({ name: "find_record", arguments: { name } });
        assert.deepEqual(found.structuredContent, {
          id: name === "alice" ? "r0" : "r1",
          owner: name === "alice" ? "r0" : "r1",
        });
        sessions.push(transport.sessionId!);
      } catch (error) {
        throw new Error(`stderr of mcp-proxy --http:\n${proxy.stderr()}`, { cause: error });
      } finally {
        await client.close();
      }
    }
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    const recorded = await eventsOf(`${dir}/state`);
    assert.deepEqual([...recorded.keys()].sort(), [...sessions].sort());
    for (const [index, name] of ["alice", "bob"].entries()) {
      const events = recorded.get(sessions[index])!;
      assert.deepEqual(events.map((event) => [event.tool_id, event.input_params]), [
        ["find_record", { name }],
      ]);
    }
  } finally {
    await proxy.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A client transport that keeps every message the proxy sent, as it arrived. */
class KeepingTransport implements Transport {
  readonly received: string[] = [];
  readonly #inner: Transport;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.received.push(JSON.stringify(message));
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** Every file under `dir`, as text (SQLite files too: a secret would show in their bytes). */
async function allBytesUnder(dir: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) text += await allBytesUnder(path);
    else if (entry.isFile) text += new TextDecoder().decode(await Deno.readFile(path));
  }
  return text;
}

Deno.test({
  name:
    "mcp-proxy --upstream-url: a call reaches an upstream on Streamable HTTP with its header, whose value is never shown or recorded",
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_upstream_url_" });
  const root = `${dir}/root`;
  await Deno.mkdir(root);
  await Deno.writeTextFile(`${root}/a.txt`, "hello through two hops");
  try {
    const upstreamToken = `up-${crypto.randomUUID()}`;
    const upstream = await spawnHttpServer(
      ["--tools", "--root", root, "--state-dir", `${dir}/upstream-state`, "--http", "127.0.0.1:0"],
      { env: { SYN_SERVER_TOKEN: upstreamToken } },
    );
    const stateDir = `${dir}/state`;
    const inner = new StdioClientTransport({
      command: SELF_COMMAND[0],
      args: [
        ...SELF_COMMAND.slice(1),
        "mcp-proxy",
        "--state-dir",
        stateDir,
        "--upstream-url",
        upstream.url,
        "--upstream-header",
        `Authorization: Bearer ${upstreamToken}`,
      ],
      env: childEnv(),
      stderr: "pipe",
    });
    const stderr = collectStream(inner.stderr);
    const transport = new KeepingTransport(inner);
    const client = new Client({ name: "test-agent", version: "1.0.0" });
    try {
      await client.connect(transport);
      const read = await client.callTool({ name: "fs.read_text", arguments: { path: "a.txt" } });
      assert.notEqual(read.isError, true, JSON.stringify(read));
      assert.match(JSON.stringify(read.structuredContent), /hello through two hops/);
    } catch (error) {
      throw new Error(`proxy stderr:\n${stderr.text()}\nupstream stderr:\n${upstream.stderr()}`, {
        cause: error,
      });
    } finally {
      await client.close();
      await upstream.stop();
    }
    const recorded = [...(await eventsOf(stateDir)).values()].flat();
    assert.deepEqual(recorded.map((event) => [event.tool_id, event.outcome]), [
      ["fs.read_text", "SUCCESS"],
    ]);
    assert.match(recorded[0].output_summary ?? "", /hello through two hops/);
    assert.ok(transport.received.length > 0);
    for (
      const [where, text] of [
        ["the proxy's stderr", stderr.text()],
        ["the event store", await allBytesUnder(stateDir)],
        ["the proxy's output", transport.received.join("\n")],
      ]
    ) {
      assert.ok(!text.includes(upstreamToken), `the header value is in ${where}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-proxy --http refuses, before serving and with a reason, what cannot work (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_http_refused_" });
  try {
    const cases: [string[], RegExp][] = [
      [
        ["--http", "0.0.0.0:0", "--no-auth", "--", "true"],
        /--no-auth: serving without a token is refused on 0\.0\.0\.0/,
      ],
      [["--no-auth", "--", "true"], /--no-auth needs --http/],
      [
        ["--http", "127.0.0.1:0", "--", `${dir}/no-such-server`],
        /could not serve through .*no-such-server/,
      ],
    ];
    for (const [args, expected] of cases) {
      const run = await runSyn(["mcp-proxy", "--state-dir", `${dir}/state`, ...args], {
        cwd: dir,
      });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, expected);
      assert.doesNotMatch(run.stderr, /mcp:ready/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
