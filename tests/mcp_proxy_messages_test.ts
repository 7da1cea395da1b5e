/**
 * What `syn mcp-proxy` tells the operator: an upstream's refusal with its HTTP status and
 * answer, the upstream's own stderr lines under its name, and upstream headers whose secret
 * values come from the environment (`--upstream-header-env`), never the command line.
 */
import assert from "node:assert/strict";
import { openEventStore } from "../lib/synthesize/mod.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "messages-test", version: "1.0.0" },
  },
}) + "\n";

async function withUpstream(
  use: (upstream: { url: string; token: string }, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_messages_" });
  await Deno.mkdir(`${dir}/root`);
  await Deno.writeTextFile(`${dir}/root/a.txt`, "through the header");
  const token = `up-${crypto.randomUUID()}`;
  const upstream = await spawnHttpServer(
    ["--tools", "--root", `${dir}/root`, "--state-dir", `${dir}/upstream`, "--http", "127.0.0.1:0"],
    { env: { SYN_SERVER_TOKEN: token } },
  );
  try {
    await use({ url: upstream.url, token }, dir);
  } finally {
    await upstream.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an upstream's refusal is reported with its HTTP status and its answer (exit 2)", async () => {
  await withUpstream(async (upstream, dir) => {
    const runs = [
      // --http checks the upstream before serving; on stdio it is reached at the client's initialize.
      await runSyn([
        "mcp-proxy",
        "--state-dir",
        `${dir}/state`,
        "--http",
        "127.0.0.1:0",
        "--upstream-url",
        upstream.url,
      ]),
      await runSyn(["mcp-proxy", "--state-dir", `${dir}/state`, "--upstream-url", upstream.url], {
        stdin: INITIALIZE,
      }),
      await runSyn([
        "mcp-proxy",
        "--state-dir",
        `${dir}/state`,
        "--upstream-url",
        upstream.url,
        "--upstream-header-env",
        "Authorization=UPSTREAM_AUTH",
      ], { stdin: INITIALIZE, env: { UPSTREAM_AUTH: "Bearer not-the-token" } }),
    ];
    for (const run of runs) {
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /could not serve through http:\/\/127\.0\.0\.1:\d+: the upstream answered HTTP 401 Unauthorized\b/,
      );
      assert.doesNotMatch(run.stderr, /Error POSTing/);
      assert.ok(!run.stderr.includes("not-the-token"), run.stderr);
    }
  });
});

Deno.test({
  name:
    "--upstream-header-env sends the variable's value, which is in no process's command line, recorded file or message",
}, async () => {
  await withUpstream(async (upstream, dir) => {
    const proxy = await spawnHttpServer(
      [
        "--http",
        "127.0.0.1:0",
        "--state-dir",
        `${dir}/state`,
        "--upstream-url",
        upstream.url,
        "--upstream-header-env",
        "Authorization=UPSTREAM_AUTH",
      ],
      { command: "mcp-proxy", env: { UPSTREAM_AUTH: `Bearer ${upstream.token}` } },
    );
    try {
      const commandLine = await Deno.readTextFile(`/proc/${proxy.child.pid}/cmdline`);
      assert.match(commandLine, /Authorization=UPSTREAM_AUTH/);
      assert.ok(!commandLine.includes(upstream.token));
      const { client, transport } = await connectHttpClient(proxy.url, proxy.token);
      const read = await client.callTool({ name: "fs.read_text", arguments: { path: "a.txt" } });
      assert.match(JSON.stringify(read), /through the header/);
      await transport.terminateSession();
      await client.close();
    } finally {
      const status = await proxy.stop();
      assert.equal(status.code, 0, proxy.stderr());
    }
    assert.ok(!proxy.stderr().includes(upstream.token));
    await using store = await openEventStore(`${dir}/state`, undefined);
    const [session] = await store.getSessions();
    const events = await store.getBySession(session.session_id);
    assert.deepEqual(events.map((event) => event.tool_id), ["fs.read_text"]);
  });
});

Deno.test("--upstream-header-env refuses a variable that is not set, or a malformed pair (exit 2)", async () => {
  const cases: [string[], RegExp][] = [
    [["--upstream-header-env", "Authorization=NO_SUCH_VARIABLE"], /NO_SUCH_VARIABLE is not set/],
    [["--upstream-header-env", "Authorization: Bearer x"], /takes 'Name=ENV_NAME'/],
  ];
  for (const [flags, expected] of cases) {
    const run = await runSyn([
      "mcp-proxy",
      "--upstream-url",
      "http://127.0.0.1:9/mcp",
      ...flags,
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, expected);
  }
  const withCommand = await runSyn([
    "mcp-proxy",
    "--upstream-header-env",
    "Authorization=HOME",
    "--",
    "true",
  ]);
  assert.equal(withCommand.code, 2);
  assert.match(withCommand.stderr, /go with --upstream-url/);
});

Deno.test("the upstream's stderr lines reach the operator prefixed with its name; --no-record records nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_stderr_" });
  try {
    await Deno.mkdir(`${dir}/root`);
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "fs.list_dir", arguments: { path: "." } },
    });
    const run = await runSyn([
      "mcp-proxy",
      "--no-record",
      "--state-dir",
      `${dir}/state`,
      "--",
      ...SELF_COMMAND,
      "mcp-serve",
      "--tools",
      "--root",
      `${dir}/root`,
      "--state-dir",
      `${dir}/upstream`,
    ], { stdin: `${INITIALIZE}${call}\n`, cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /"id":2/);
    const lines = run.stderr.split("\n").filter(Boolean);
    assert.ok(lines.length >= 2, run.stderr);
    for (const line of lines) assert.match(line, /^mcp-proxy: /, run.stderr);
    assert.match(run.stderr, /^mcp-proxy: main\.ts: mcp:ready mode=stdio$/m);
    assert.match(run.stderr, /^mcp-proxy: main\.ts: mcp:shutdown mode=stdio$/m);
    await assert.rejects(Deno.stat(`${dir}/state/events.sqlite`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "--upstream-header-file sends the headers of a file only its owner may read, and refuses one others may",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await withUpstream(async (upstream, dir) => {
    const file = `${dir}/upstream.headers`;
    await Deno.writeTextFile(
      file,
      `# the upstream's token\nAuthorization: Bearer ${upstream.token}\n`,
      {
        mode: 0o644,
      },
    );
    await Deno.chmod(file, 0o644);
    const open = await runSyn([
      "mcp-proxy",
      "--state-dir",
      `${dir}/state`,
      "--http",
      "127.0.0.1:0",
      "--upstream-url",
      upstream.url,
      "--upstream-header-file",
      file,
    ]);
    assert.equal(open.code, 2, open.stderr);
    assert.match(open.stderr, /may be read by others \(mode 644\): chmod 600 it/);
    assert.ok(!open.stderr.includes(upstream.token));

    await Deno.chmod(file, 0o600);
    const proxy = await spawnHttpServer(
      [
        "--http",
        "127.0.0.1:0",
        "--state-dir",
        `${dir}/state`,
        "--upstream-url",
        upstream.url,
        "--upstream-header-file",
        file,
      ],
      { command: "mcp-proxy" },
    );
    try {
      const { client, transport } = await connectHttpClient(proxy.url, proxy.token);
      const read = await client.callTool({ name: "fs.read_text", arguments: { path: "a.txt" } });
      assert.match(JSON.stringify(read), /through the header/);
      await transport.terminateSession();
      await client.close();
    } finally {
      const status = await proxy.stop();
      assert.equal(status.code, 0, proxy.stderr());
    }
    assert.ok(!proxy.stderr().includes(upstream.token));
  });
});
