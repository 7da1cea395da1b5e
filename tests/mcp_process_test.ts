import { childEnv } from "./fakes/child_env.ts";
/** The process model of `syn mcp-serve` (MCP spec §3, §10), run as real subprocesses. */
import assert from "node:assert/strict";
import { LineChannel, spawnStdioServer } from "./mcp_channels.ts";
import { connectionFromConn } from "../lib/rpc/mod.ts";
import { runSyn } from "./fakes/cli_io.ts";
import { exists } from "./fakes/shared.ts";
import { SOCKET_TESTS } from "./fakes/socket_tests.ts";
import { waitUntil } from "./fakes/wait_until.ts";

async function tempPath(name: string): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "syn_mcp_proc_" });
  return { dir, path: `${dir}/${name}` };
}

Deno.test("mcp-serve --stdio writes the ready file and line, and removes the file at EOF", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  const server = spawnStdioServer({ env: { MCP_READY_FILE: readyFile } });
  const channel = new LineChannel(server.connection);
  try {
    await waitUntil(() => server.stderr().includes("mcp:ready mode=stdio"), "the ready line");
    const content = await Deno.readTextFile(readyFile);
    assert.match(content, /^\d+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    assert.equal(Number(content.split(" ")[0]), server.child.pid);
    const reply = await channel.request({ jsonrpc: "2.0", id: 1, method: "list_schemas" });
    assert.equal((reply.result as { ok: boolean }).ok, true);
  } finally {
    channel.close();
    const status = await server.stop();
    assert.equal(status.code, 0);
    assert.equal(exists(readyFile), false);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve never writes through a symlink planted at the ready file's path", async () => {
  // The default ready file lives in /tmp, where anyone may plant a link to a file of ours.
  const { dir, path: readyFile } = await tempPath("mcp.ready");
  const victim = `${dir}/victim.txt`;
  try {
    await Deno.writeTextFile(victim, "keep me\n");
    await Deno.symlink(victim, readyFile);
    const server = spawnStdioServer({ env: { MCP_READY_FILE: readyFile } });
    try {
      await waitUntil(() => server.stderr().includes("mcp:ready mode=stdio"), "the ready line");
      assert.equal(await Deno.readTextFile(victim), "keep me\n");
      // A link is not our ready file: it is neither followed nor removed, and said so.
      assert.equal(Deno.lstatSync(readyFile).isSymlink, true, "the link was replaced");
      assert.match(server.stderr(), /exists and is not a ready file; left untouched/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    assert.equal(await Deno.readTextFile(victim), "keep me\n");
    assert.equal(Deno.lstatSync(readyFile).isSymlink, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve with a SYN_SCHEMAS_DIR set that cannot compile reports it and exits 1", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  try {
    await Deno.mkdir(`${dir}/schemas`);
    await Deno.writeTextFile(`${dir}/schemas/broken.json`, JSON.stringify({ type: 12 }));
    const result = await runSyn(["mcp-serve", "--tcp", "127.0.0.1:0"], {
      env: { MCP_READY_FILE: readyFile, SYN_SCHEMAS_DIR: `${dir}/schemas` },
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /mcp:error detail=".*Schema cannot be loaded: .*broken\.json/);
    assert.equal(result.stdout, "");
    assert.equal(exists(readyFile), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGTERM during a slow request: the response arrives, the ready file goes, exit 0", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  // Every tool call waits 700 ms first (a hook injected by the test's entry point).
  const server = spawnStdioServer({ env: { MCP_READY_FILE: readyFile }, delayMs: 700 });
  const channel = new LineChannel(server.connection);
  try {
    await waitUntil(() => exists(readyFile), "the ready file");
    await channel.send('{"jsonrpc":"2.0","id":"slow","method":"list_schemas"}\n');
    await waitUntil(() => server.stderr().includes("mcp:delay method=list_schemas"), "the call");
    server.child.kill("SIGTERM");
    const reply = JSON.parse(await channel.readLine());
    assert.equal(reply.id, "slow");
    assert.equal(reply.result.ok, true);
    const status = await server.child.status;
    assert.equal(status.code, 0);
    assert.equal(exists(readyFile), false);
    assert.match(server.stderr(), /mcp:shutdown mode=stdio/);
  } finally {
    channel.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGINT on an idle TCP server exits 0 at once", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  const server = spawnStdioServer({
    args: ["--tcp", "127.0.0.1:0"],
    env: { MCP_READY_FILE: readyFile },
  });
  try {
    await waitUntil(() => /address=127\.0\.0\.1:\d+/.test(server.stderr()), "the ready line");
    server.child.kill("SIGINT");
    assert.equal((await server.child.status).code, 0);
    assert.equal(exists(readyFile), false);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve --tcp answers, and SIGTERM lets the in-flight request finish", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  const server = spawnStdioServer({
    args: ["--tcp", "127.0.0.1:0"],
    env: { MCP_READY_FILE: readyFile },
    delayMs: 500,
  });
  let channel: LineChannel | undefined;
  try {
    await waitUntil(
      () => /mcp:ready mode=tcp address=127\.0\.0\.1:\d+/.test(server.stderr()),
      "ready",
    );
    const port = Number(/address=127\.0\.0\.1:(\d+)/.exec(server.stderr())![1]);
    channel = new LineChannel(
      connectionFromConn(await Deno.connect({ hostname: "127.0.0.1", port })),
    );
    await channel.send('{"jsonrpc":"2.0","id":7,"method":"get_schema","params":{"name":"tone"}}\n');
    await waitUntil(() => server.stderr().includes("mcp:delay method=get_schema"), "the call");
    server.child.kill("SIGTERM");
    const reply = JSON.parse(await channel.readLine());
    assert.equal(reply.id, 7);
    assert.equal(reply.result.ok, true);
    assert.equal(await channel.ended(), true, "the server closes the connection after");
    assert.equal((await server.child.status).code, 0);
    assert.equal(exists(readyFile), false);
  } finally {
    channel?.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "mcp-serve --socket replaces a stale socket file and removes it on exit",
  ignore: SOCKET_TESTS.ignore,
  fn: async () => {
    const { dir, path: socketPath } = await tempPath("mcp.sock");
    // A stale socket: its server was killed and never unlinked it.
    const owner = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `Deno.listen({ transport: "unix", path: ${JSON.stringify(socketPath)} });` +
        `console.log("up"); setInterval(() => {}, 1000);`,
      ],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const ownerStderr = new Response(owner.stderr).text();
    const reader = owner.stdout.getReader();
    await reader.read();
    reader.releaseLock();
    owner.kill("SIGKILL");
    await owner.status;
    await owner.stdout.cancel();
    assert.equal(exists(socketPath), true, await ownerStderr);
    const server = spawnStdioServer({
      args: [],
      env: { MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: socketPath, MCP_READY_FILE: `${dir}/ready` },
    });
    let channel: LineChannel | undefined;
    try {
      await waitUntil(() => server.stderr().includes("mcp:ready mode=socket"), "ready");
      channel = new LineChannel(
        connectionFromConn(await Deno.connect({ transport: "unix", path: socketPath })),
      );
      const reply = await channel.request({ jsonrpc: "2.0", id: 1, method: "list_examples" });
      assert.equal((reply.result as { ok: boolean }).ok, true);
      channel.close();
      channel = undefined;
      // A second server must not steal a live socket.
      const second = await runSyn(["mcp-serve", "--socket", socketPath], {
        env: { MCP_READY_FILE: `${dir}/ready2` },
      });
      // Not bad usage: the job (listening) failed.
      assert.equal(second.code, 1);
      assert.match(second.stderr, /already listening/);
      server.child.kill("SIGTERM");
      assert.equal((await server.child.status).code, 0);
      assert.equal(exists(socketPath), false);
    } finally {
      channel?.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("mcp-serve refuses to replace a file that is not a socket", async () => {
  const { dir, path } = await tempPath("not-a-socket");
  await Deno.writeTextFile(path, "keep me");
  try {
    const result = await runSyn(["mcp-serve", "--socket", path], {
      env: { MCP_READY_FILE: `${dir}/ready` },
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /not a socket/);
    assert.equal(await Deno.readTextFile(path), "keep me");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve keeps stdout for frames only", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  try {
    const result = await runSyn(["mcp-serve"], {
      env: { MCP_READY_FILE: readyFile },
      stdin: '{"jsonrpc":"2.0","id":1,"method":"validate","params":{"asset":{"name":"x"},' +
        '"schema":"synesthetic-asset"}}\nnot json\n',
    });
    assert.equal(result.code, 0);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, "2.0");
    assert.match(result.stderr, /reason=deprecated_alias/);
    assert.match(result.stderr, /mcp:ready mode=stdio/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve posts to SYN_BACKEND_URL + SYN_BACKEND_ASSETS_PATH, valid assets only", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  const received: { method: string; path: string; body: unknown }[] = [];
  const backend = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    received.push({
      method: request.method,
      path: new URL(request.url).pathname,
      body: await request.json(),
    });
    return Response.json({ id: `asset-${received.length}` }, { status: 201 });
  });
  try {
    const populate = (id: number, asset: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "populate_backend", params: { asset } });
    const result = await runSyn(["mcp-serve", "--stdio"], {
      env: {
        MCP_READY_FILE: readyFile,
        SYN_BACKEND_URL: `http://127.0.0.1:${backend.addr.port}/api/`,
        SYN_BACKEND_ASSETS_PATH: "/assets",
      },
      stdin: [populate(1, { name: "good" }), populate(2, { name: 42 })].join("\n") + "\n",
    });
    assert.equal(result.code, 0, result.stderr);
    const [posted, rejected] = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(posted, {
      jsonrpc: "2.0",
      id: 1,
      result: {
        ok: true,
        asset_id: "asset-1",
        backend_url: `http://127.0.0.1:${backend.addr.port}/api/assets`,
      },
    });
    assert.equal(rejected.result.ok, false);
    assert.equal(rejected.result.reason, "validation_failed");
    assert.deepEqual(received, [{ method: "POST", path: "/api/assets", body: { name: "good" } }]);
  } finally {
    await backend.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve never shows the credentials of SYN_BACKEND_URL that a backend echoes", async () => {
  const { dir, path: readyFile } = await tempPath("ready");
  const [user, password] = ["backend-user", "backend-pass-s3cret"];
  const backend = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const authorization = request.headers.get("authorization") ?? "";
    const detail = `rejected Authorization: ${authorization} (${authorization.slice(6)}, ${
      atob(authorization.slice(6))
    })`;
    return Response.json({ detail }, { status: 401 });
  });
  try {
    const request = { asset: { name: "good" }, validate_first: false };
    const result = await runSyn(["mcp-serve", "--stdio"], {
      env: {
        MCP_READY_FILE: readyFile,
        SYN_BACKEND_URL: `http://${user}:${password}@127.0.0.1:${backend.addr.port}/api/`,
      },
      stdin:
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "populate_backend", params: request }) +
        "\n",
    });
    assert.equal(result.code, 0, result.stderr);
    const reply = JSON.parse(result.stdout.trimEnd());
    assert.equal(reply.result.status, 401);
    assert.match(reply.result.detail, /^rejected Authorization: \*\*\*redacted\*\*\*/);
    for (const secret of [user, password, btoa(`${user}:${password}`)]) {
      assert.equal(result.stdout.includes(secret), false, result.stdout);
      assert.equal(result.stderr.includes(secret), false, result.stderr);
    }
  } finally {
    await backend.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp-serve rejects conflicting flags and bad addresses with exit 2", async () => {
  for (
    const args of [["--stdio", "--tcp", "127.0.0.1:1"], ["--tcp", "nohost"], ["--tcp", "h:99999"]]
  ) {
    const result = await runSyn(["mcp-serve", ...args]);
    assert.equal(result.code, 2, args.join(" "));
    assert.equal(result.stdout, "");
  }
  const noPort = await runSyn(["mcp-serve"], { env: { MCP_ENDPOINT: "tcp" } });
  assert.equal(noPort.code, 2);
  assert.match(noPort.stderr, /MCP_PORT/);
});
