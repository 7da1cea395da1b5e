/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance@0.1.16`, Node ≥ 22)
 * against its own reference server (`../shared/conformance/mcp-conformance-server/`, which
 * `.ci/run` installs into `.tools/conformance-server/`), directly and through
 * `syn mcp-proxy --http --upstream-url <it>`: the same scenarios pass both ways — the
 * proxy's transparency held to the official suite (sampling and elicitation included).
 * Without Node 22, the suite or the server, the test is ignored with the reason printed.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { spawnHttpServer } from "./fakes/mcp_http_child.ts";

const TOOLS = fileURLToPath(new URL("../.tools/", import.meta.url));
const NODE = `${TOOLS}node_modules/node/bin/node`;
const SUITE = `${TOOLS}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const SERVER_DIR = `${TOOLS}conformance-server/`;
const TSX = `${SERVER_DIR}node_modules/.bin/tsx`;
const SERVER = `${SERVER_DIR}everything-server.ts`;

function missing(): string | undefined {
  try {
    const { code, stdout } = new Deno.Command(NODE, {
      args: ["--version"],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    const major = Number(/^v(\d+)\./.exec(new TextDecoder().decode(stdout))?.[1]);
    if (code !== 0 || !(major >= 22)) return `${NODE} is not Node 22 or later`;
  } catch {
    return `no Node 22 at ${NODE} (.ci/run installs node@22 there)`;
  }
  for (const [file, what] of [[SUITE, "conformance suite"], [TSX, "reference server"]]) {
    try {
      Deno.statSync(file);
    } catch {
      return `no ${what} at ${file} (.ci/run installs it there)`;
    }
  }
  return undefined;
}

const reason = missing();
if (reason) console.warn(`skipping the conformance suite through mcp-proxy: ${reason}`);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The suite's reference server on a free port; resolves once it says it is listening. */
async function startReferenceServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(NODE, {
    args: [TSX, SERVER],
    cwd: SERVER_DIR,
    clearEnv: true,
    env: childEnv({ PORT: String(port) }),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const cancelKill = killAfter(child, 600_000);
  let said = "";
  const decoder = new TextDecoder();
  const stderrDone = child.stderr.pipeTo(
    new WritableStream({
      write: (chunk) => void (said += decoder.decode(chunk, { stream: true })),
    }),
  ).catch(() => {});
  const reader = child.stdout.getReader();
  const deadline = Date.now() + 60_000;
  while (!/running on/.test(said)) {
    const timer = new Promise<"timeout">((resolve) =>
      setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()))
    );
    const next = await Promise.race([reader.read(), timer]);
    if (next === "timeout" || next.done) {
      child.kill("SIGKILL");
      throw new Error(`the reference server did not start:\n${said}`);
    }
    said += decoder.decode(next.value, { stream: true });
  }
  // Keep reading what it writes, so it never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return {
    url: `http://localhost:${port}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      cancelKill();
      await drained;
      await stderrDone;
    },
  };
}

/** Runs the suite (or one scenario) against `url`: scenario → passed, and the summary text. */
async function runSuite(
  url: string,
  scenario?: string,
): Promise<{ passed: Map<string, boolean>; summary: string }> {
  const child = new Deno.Command(NODE, {
    args: [SUITE, "server", "--url", url, ...(scenario ? ["--scenario", scenario] : [])],
    clearEnv: true,
    env: childEnv(),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const cancelKill = killAfter(child, 600_000);
  const output = await child.output();
  cancelKill();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  const passed = new Map<string, boolean>();
  for (const match of text.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gm)) {
    passed.set(match[2], match[1] === "✓" && match[4] === "0");
  }
  if (scenario && passed.size === 0) {
    passed.set(scenario, /Passed: (\d+)\/\1, 0 failed/.test(text));
  }
  return { passed, summary: text.slice(text.indexOf("=== SUMMARY ===")).trim() || text };
}

/** Scenarios whose outcome differs between `direct` and `url`, after rerunning each alone. */
async function differences(
  reference: string,
  direct: Map<string, boolean>,
  url: string,
): Promise<string[]> {
  const through = await runSuite(url);
  console.log(`through ${url}:\n${through.summary}`);
  const differing: string[] = [];
  // A scenario that differs is run again on its own, both ways: a machine under load can
  // fail one (the suite waits on timers); a real difference stays.
  for (const name of new Set([...direct.keys(), ...through.passed.keys()])) {
    let [plain, proxied] = [direct.get(name) ?? false, through.passed.get(name) ?? false];
    for (let attempt = 0; attempt < 2 && (plain !== proxied || !plain); attempt++) {
      plain = (await runSuite(reference, name)).passed.get(name) ?? false;
      proxied = (await runSuite(url, name)).passed.get(name) ?? false;
    }
    if (plain !== proxied || !plain) differing.push(`${name}: direct ${plain}, proxy ${proxied}`);
  }
  return differing;
}

Deno.test({
  name:
    "the official conformance suite passes the same scenarios against its reference server directly and through mcp-proxy --http (an upstream session per client, and shared)",
  ignore: reason !== undefined,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_conformance_" });
  const reference = await startReferenceServer();
  try {
    const direct = await runSuite(reference.url);
    console.log(`directly:\n${direct.summary}`);
    assert.ok(direct.passed.size >= 30, direct.summary);
    for (const extra of [[], ["--shared-upstream"]]) {
      const proxy = await spawnHttpServer(
        [
          "--http",
          "127.0.0.1:0",
          "--no-auth",
          "--state-dir",
          `${dir}/state`,
          ...extra,
          "--upstream-url",
          reference.url,
        ],
        { command: "mcp-proxy" },
      );
      try {
        assert.deepEqual(
          await differences(reference.url, direct.passed, proxy.url),
          [],
          `mcp-proxy ${extra.join(" ")} stderr:\n${proxy.stderr()}`,
        );
      } finally {
        const status = await proxy.stop();
        assert.equal(status.code, 0, proxy.stderr());
      }
    }
  } finally {
    await reference.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
