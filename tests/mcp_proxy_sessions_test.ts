/**
 * Sessions end, processes end: after 100 client sessions through `syn mcp-proxy --http`,
 * in front of a command (one started per session) and of an HTTP upstream (one upstream
 * session per client session), nothing is left upstream — no process, no session — once
 * the sessions end, and none after SIGTERM with sessions still open. On stdio, the proxy
 * returns only after its upstream has exited, its last writes done.
 */
import assert from "node:assert/strict";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";

const TINY = new URL("./fakes/tiny_mcp_upstream.ts", import.meta.url).pathname;
const SESSIONS = 100;

function tinyUpstream(dir: string, extra: string[] = []): string[] {
  return [Deno.execPath(), "run", `--allow-write=${dir}`, TINY, ...extra];
}

/** The processes named in the pid file that are still running (zombies count as gone). */
async function living(pidFile: string): Promise<number[]> {
  const pids = (await Deno.readTextFile(pidFile)).split("\n").filter(Boolean).map(Number);
  const alive: number[] = [];
  for (const pid of pids) {
    try {
      const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
      if (!/^\d+ \(.*\) Z/.test(stat)) alive.push(pid);
    } catch {
      // gone
    }
  }
  return alive;
}

/** Waits (at most `ms`) until `check` gives 0, and returns its last value. */
async function settled(check: () => Promise<number>, ms = 20_000): Promise<number> {
  const deadline = Date.now() + ms;
  let value = await check();
  while (value !== 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await check();
  }
  return value;
}

async function oneSession(url: string, token: string | undefined, text: string): Promise<void> {
  const { client, transport } = await connectHttpClient(url, token);
  try {
    const result = await client.callTool({ name: "echo", arguments: { text } });
    assert.deepEqual(result.content, [{ type: "text", text }]);
    await transport.terminateSession();
  } finally {
    await client.close();
  }
}

Deno.test({
  name:
    "100 sessions through mcp-proxy --http in front of a command leave no process behind; SIGTERM ends the open ones",
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_processes_" });
  const pidFile = `${dir}/pids`;
  await Deno.writeTextFile(pidFile, "");
  const lastWrites = `${dir}/last-writes`;
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--no-record",
      "--",
      // Each upstream takes a while to exit once its input ends, as a server saving its state.
      ...tinyUpstream(dir, [
        "--pid-file",
        pidFile,
        "--last-write",
        lastWrites,
        "--last-write-delay-ms",
        "1000",
      ]),
    ],
    { command: "mcp-proxy" },
  );
  try {
    for (let session = 0; session < SESSIONS; session++) {
      await oneSession(proxy.url, proxy.token, `session ${session}`);
    }
    // Stateless 2026-era requests: an upstream each, ended with the request.
    for (let request = 0; request < 10; request++) {
      const { client } = await connectHttpClient(proxy.url, proxy.token, { modern: true });
      await client.callTool({ name: "echo", arguments: { text: "modern" } });
      await client.close();
    }
    const started = (await Deno.readTextFile(pidFile)).split("\n").filter(Boolean).length;
    assert.ok(started >= SESSIONS + 1, `${started} upstream processes started`);
    assert.equal(await settled(async () => (await living(pidFile)).length), 0, proxy.stderr());

    // Sessions left open when the signal comes: their upstreams end before the proxy exits.
    const open = await Promise.all(
      [0, 1, 2, 3].map(() => connectHttpClient(proxy.url, proxy.token)),
    );
    for (const { client } of open) await client.callTool({ name: "echo", arguments: {} });
    assert.equal((await living(pidFile)).length, 4);
    // Checked the moment the proxy has exited (its pipes could outlive it).
    proxy.child.kill("SIGTERM");
    const status = await proxy.child.status;
    const stillRunning = await living(pidFile);
    const lastWritten = (await Deno.readTextFile(lastWrites)).split("\n").filter(Boolean).length;
    await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    assert.deepEqual(stillRunning, [], proxy.stderr());
    // Every upstream ended on its own, its last write done: none was killed on the way.
    assert.equal(lastWritten, started + 4, proxy.stderr());
    for (const { client } of open) await client.close();
  } finally {
    await proxy.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** An MCP server on Streamable HTTP in this process that counts its live sessions. */
function countingUpstream(): {
  url: string;
  live(): number;
  opened(): number;
  close(): Promise<void>;
} {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let opened = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const id = request.headers.get("mcp-session-id");
      if (id !== null) {
        const transport = sessions.get(id);
        if (!transport) return new Response("no such session", { status: 404 });
        return await transport.handleRequest(request);
      }
      const mcp = new Server({ name: "counting-upstream", version: "1.0.0" }, {
        capabilities: { tools: {} },
      });
      mcp.setRequestHandler("tools/list", () => ({
        tools: [{ name: "echo", inputSchema: { type: "object" as const } }],
      }));
      mcp.setRequestHandler("tools/call", (request) => ({
        content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }],
      }));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => void (sessions.set(sessionId, transport), opened++),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      await mcp.connect(transport);
      return await transport.handleRequest(request);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    live: () => sessions.size,
    opened: () => opened,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      await server.shutdown();
    },
  };
}

Deno.test({
  name:
    "100 sessions through mcp-proxy --http in front of an HTTP upstream leave no upstream session open",
}, async () => {
  const upstream = countingUpstream();
  const proxy = await spawnHttpServer(
    ["--http", "127.0.0.1:0", "--no-record", "--upstream-url", upstream.url],
    { command: "mcp-proxy" },
  );
  try {
    // The start-up check's session is gone already.
    assert.equal(upstream.opened(), 1);
    assert.equal(upstream.live(), 0, proxy.stderr());
    for (let session = 0; session < SESSIONS; session++) {
      await oneSession(proxy.url, proxy.token, `session ${session}`);
    }
    for (let request = 0; request < 10; request++) {
      const { client } = await connectHttpClient(proxy.url, proxy.token, { modern: true });
      await client.callTool({ name: "echo", arguments: { text: "modern" } });
      await client.close();
    }
    assert.ok(upstream.opened() >= SESSIONS + 1);
    assert.equal(await settled(() => Promise.resolve(upstream.live())), 0, proxy.stderr());

    const open = await Promise.all([0, 1, 2].map(() => connectHttpClient(proxy.url, proxy.token)));
    assert.equal(upstream.live(), 3);
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    assert.equal(upstream.live(), 0, proxy.stderr());
    for (const { client } of open) await client.close();
  } finally {
    await proxy.stop();
    await upstream.close();
  }
});

Deno.test({
  name:
    "mcp-proxy --shared-upstream serves 100 sessions from one upstream process, ended on SIGTERM",
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_shared_" });
  const pidFile = `${dir}/pids`;
  await Deno.writeTextFile(pidFile, "");
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--shared-upstream",
      "--no-record",
      "--",
      ...tinyUpstream(dir, ["--pid-file", pidFile]),
    ],
    { command: "mcp-proxy" },
  );
  try {
    for (let session = 0; session < SESSIONS; session++) {
      await oneSession(proxy.url, proxy.token, `session ${session}`);
    }
    assert.equal((await living(pidFile)).length, 1);
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    assert.deepEqual(await living(pidFile), [], proxy.stderr());
  } finally {
    await proxy.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

const LINES = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "short-session", version: "1.0.0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: {} } },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

Deno.test("mcp-proxy on stdio exits after its upstream has exited, its last writes done", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_last_write_" });
  try {
    for (let run = 0; run < 3; run++) {
      const lastWrite = `${dir}/last-${run}`;
      const pidFile = `${dir}/pids-${run}`;
      await Deno.writeTextFile(pidFile, "");
      const child = new Deno.Command(SELF_COMMAND[0], {
        args: [
          ...SELF_COMMAND.slice(1),
          "mcp-proxy",
          "--no-record",
          "--",
          ...tinyUpstream(dir, [
            "--pid-file",
            pidFile,
            "--last-write",
            lastWrite,
            "--last-write-delay-ms",
            "1500",
          ]),
        ],
        clearEnv: true,
        env: childEnv(),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const cancelKill = killAfter(child);
      const stdout = new Response(child.stdout).text();
      const stderr = new Response(child.stderr).text();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(LINES));
      await writer.close();
      // The proxy's own exit (not its pipes closing, which a child could hold open).
      const status = await child.status;
      cancelKill();
      // Read at once: the output below is complete only once every holder of the pipes exits.
      const lastWritten = await Deno.readTextFile(lastWrite).catch(() => "");
      const stillRunning = await living(pidFile);
      const shown = `stdout:\n${await stdout}\nstderr:\n${await stderr}`;
      assert.equal(status.code, 0, shown);
      assert.deepEqual(stillRunning, [], shown);
      assert.equal(lastWritten, "last write\n", shown);
      assert.match(shown, /"id":2/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-proxy on stdio, stopped by SIGTERM mid-session, exits after its upstream has", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_sigterm_" });
  try {
    const lastWrite = `${dir}/last`;
    const pidFile = `${dir}/pids`;
    await Deno.writeTextFile(pidFile, "");
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [
        ...SELF_COMMAND.slice(1),
        "mcp-proxy",
        "--no-record",
        "--",
        ...tinyUpstream(dir, [
          "--pid-file",
          pidFile,
          "--last-write",
          lastWrite,
          "--last-write-delay-ms",
          "1000",
        ]),
      ],
      clearEnv: true,
      env: childEnv(),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const cancelKill = killAfter(child);
    const stderr = new Response(child.stderr).text();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(LINES));
    // The session is open (its answers came) when the signal arrives; input stays open.
    const reader = child.stdout.getReader();
    let seen = "";
    while (!seen.includes('"id":2')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    child.kill("SIGTERM");
    const status = await child.status;
    cancelKill();
    const lastWritten = await Deno.readTextFile(lastWrite).catch(() => "");
    const stillRunning = await living(pidFile);
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    const shown = `stdout:\n${seen}\nstderr:\n${await stderr}`;
    assert.equal(status.code, 0, shown);
    assert.deepEqual(stillRunning, [], shown);
    assert.equal(lastWritten, "last write\n", shown);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("when the upstream exits, the call in flight is answered with an error and mcp-proxy ends the session", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_upstream_exit_" });
  try {
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [...SELF_COMMAND.slice(1), "mcp-proxy", "--no-record", "--", ...tinyUpstream(dir)],
      clearEnv: true,
      env: childEnv(),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const cancelKill = killAfter(child);
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    const writer = child.stdin.getWriter();
    const crash = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "exit", arguments: {} },
    });
    // The client's input stays open: only the upstream's exit can end the session.
    await writer.write(new TextEncoder().encode(`${LINES}${crash}\n`));
    const status = await child.status;
    cancelKill();
    await writer.close().catch(() => {});
    const shown = `stdout:\n${await stdout}\nstderr:\n${await stderr}`;
    assert.equal(status.code, 0, shown);
    const answers = (await stdout).split("\n").filter(Boolean).map((line) => JSON.parse(line));
    assert.deepEqual(answers.find((answer) => answer.id === 3)?.error?.code, -32000, shown);
    assert.match(await stderr, /the upstream \(tiny_mcp_upstream\.ts\) closed the connection/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
