/**
 * The proxy's cost per call (`deno run -A scripts/bench_proxy.ts [--calls N]`): 2,000
 * sequential `tools/call`s of a cheap tool (`echo` of `tests/fakes/tiny_mcp_upstream.ts`, an
 * MCP server with no imports) from the official SDK client, per configuration:
 *
 * - direct, on stdio;
 * - through `syn mcp-proxy` on stdio, recording on and off (`--no-record`);
 * - through a bare line relay (`scripts/_line_relay.ts`: copies bytes, nothing else);
 * - through `syn mcp-proxy --http` (recording on), over Streamable HTTP;
 * - through `supergateway --stateful --outputTransport streamableHttp` and punkpeye's
 *   `mcp-proxy --server stream` (npm), when they are in `.tools/bench-peers/` or can be
 *   installed there (a missing one is skipped with its reason).
 *
 * Every client is connected and warmed first; then the calls run in rounds that alternate
 * the configurations (each round starts with the next one), so drift on a shared machine
 * spreads over all. Also: the time to a new session's first answer over `--http`, per
 * session (a command started for each) and with `--shared-upstream`. Prints p50/p99 per
 * configuration and the ratios; asserts nothing.
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv } from "../tests/fakes/child_env.ts";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "2000" }, rounds: { type: "string", default: "8" } },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const DENO = Deno.execPath();
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const TINY = fileURLToPath(new URL("../tests/fakes/tiny_mcp_upstream.ts", import.meta.url));
const RELAY = fileURLToPath(new URL("./_line_relay.ts", import.meta.url));
const PEERS = fileURLToPath(new URL("../.tools/bench-peers/", import.meta.url));
const UPSTREAM = [DENO, "run", TINY];
const env = childEnv();

interface Connected {
  client: Client;
  close(): Promise<void>;
}

interface Configuration {
  name: string;
  connect(): Promise<Connected>;
}

async function overStdio(command: string[]): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: command[0],
    args: command.slice(1),
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-proxy", version: "1.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** A server child that prints its URL; resolves with the URL and a way to stop it. */
async function serverChild(
  command: string[],
  ready: RegExp | undefined,
  url: (match: RegExpExecArray | null) => string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let said = "";
  const decoder = new TextDecoder();
  const { promise, resolve, reject } = Promise.withResolvers<string>();
  const timer = setTimeout(() => reject(new Error(`never ready:\n${said}`)), 60_000);
  const read = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      said += decoder.decode(chunk, { stream: true });
      const match = ready?.exec(said);
      if (match) resolve(url(match));
    }
  };
  void read(child.stdout).catch(() => {});
  void read(child.stderr).catch(() => {});
  if (!ready) resolve(url(null));
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // gone
    }
    await child.status;
  };
  try {
    return { url: await promise.finally(() => clearTimeout(timer)), stop };
  } catch (error) {
    // A child that never got ready is not left running.
    await stop();
    throw error;
  }
}

async function overHttp(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
  });
  const client = new Client({ name: "bench-proxy", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const SYN_READY = /mcp:ready mode=http url=(\S+)(?: token=(\S+))?/;

function synHttp(name: string, flags: string[], stateDir: string): Configuration {
  return {
    name,
    async connect() {
      const server = await serverChild(
        [
          DENO,
          "run",
          "-A",
          MAIN,
          "mcp-proxy",
          "--http",
          "127.0.0.1:0",
          "--no-auth",
          "--state-dir",
          stateDir,
          ...flags,
          "--",
          ...UPSTREAM,
        ],
        SYN_READY,
        (match) => match![1],
      );
      const client = await overHttp(server.url);
      return { client, close: async () => (await client.close(), await server.stop()) };
    },
  };
}

/** A peer proxy from npm, installed into .tools/bench-peers/ when missing; or why not. */
async function peer(bin: string): Promise<string | { skipped: string }> {
  const path = `${PEERS}node_modules/.bin/${bin}`;
  try {
    await Deno.stat(path);
    return path;
  } catch {
    // install below
  }
  try {
    const { code, stderr } = await new Deno.Command("npm", {
      args: ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", PEERS, bin],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      return {
        skipped: `npm install ${bin} failed: ${
          new TextDecoder().decode(stderr).trim().split("\n").at(-1)
        }`,
      };
    }
    await Deno.stat(path);
    return path;
  } catch (error) {
    return { skipped: `${bin} could not be installed: ${(error as Error).message}` };
  }
}

function peerConfiguration(
  name: string,
  start: (port: number) => string[],
  path: string,
): Configuration {
  return {
    name,
    async connect() {
      const port = freePort();
      const server = await serverChild(
        ["node", path, ...start(port)],
        undefined,
        () => `http://127.0.0.1:${port}/mcp`,
      );
      // Ready when it answers: the first connections may be refused.
      for (let attempt = 0;; attempt++) {
        try {
          const client = await overHttp(server.url);
          return { client, close: async () => (await client.close(), await server.stop()) };
        } catch (error) {
          if (attempt > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
  };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

async function main(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "syn_bench_proxy_" });
  try {
    await measure(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function measure(dir: string): Promise<void> {
  const configurations: Configuration[] = [
    { name: "direct (stdio)", connect: () => overStdio(UPSTREAM) },
    {
      name: "line relay (stdio)",
      connect: () => overStdio([DENO, "run", "-A", RELAY, ...UPSTREAM]),
    },
    {
      name: "syn mcp-proxy (stdio, recording)",
      connect: () =>
        overStdio([
          DENO,
          "run",
          "-A",
          MAIN,
          "mcp-proxy",
          "--state-dir",
          `${dir}/stdio`,
          "--",
          ...UPSTREAM,
        ]),
    },
    {
      name: "syn mcp-proxy (stdio, --no-record)",
      connect: () =>
        overStdio([DENO, "run", "-A", MAIN, "mcp-proxy", "--no-record", "--", ...UPSTREAM]),
    },
    synHttp("syn mcp-proxy --http (recording)", [], `${dir}/http`),
  ];
  const skipped: string[] = [];
  const gateway = await peer("supergateway");
  if (typeof gateway === "string") {
    configurations.push(peerConfiguration("supergateway (http, stateful)", (port) => [
      "--stdio",
      UPSTREAM.join(" "),
      "--outputTransport",
      "streamableHttp",
      "--stateful",
      "--port",
      String(port),
      "--logLevel",
      "none",
    ], gateway));
  } else skipped.push(`supergateway: ${gateway.skipped}`);
  const punkpeye = await peer("mcp-proxy");
  if (typeof punkpeye === "string") {
    configurations.push(peerConfiguration("punkpeye mcp-proxy (http)", (port) => [
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--server",
      "stream",
      "--",
      ...UPSTREAM,
    ], punkpeye));
  } else skipped.push(`punkpeye mcp-proxy: ${punkpeye.skipped}`);

  const connected: Connected[] = [];
  const samples = new Map<string, number[]>();
  try {
    for (const configuration of configurations) {
      const session = await configuration.connect();
      connected.push(session);
      samples.set(configuration.name, []);
      for (let warm = 0; warm < 200; warm++) {
        await session.client.callTool({ name: "echo", arguments: { text: "warm" } });
      }
    }
    const perRound = Math.ceil(CALLS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let offset = 0; offset < configurations.length; offset++) {
        const index = (round + offset) % configurations.length;
        const times = samples.get(configurations[index].name)!;
        const client = connected[index].client;
        for (let call = 0; call < perRound && times.length < CALLS; call++) {
          const started = performance.now();
          await client.callTool({ name: "echo", arguments: { text: `call ${call}` } });
          times.push(performance.now() - started);
        }
      }
    }
  } finally {
    for (const session of connected) await session.close().catch(() => {});
  }

  const rows = configurations.map(({ name }) => {
    const sorted = [...samples.get(name)!].sort((a, b) => a - b);
    return { name, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  });
  const direct = rows[0];
  const relay = rows[1];
  console.log(`\n${CALLS} sequential tools/call of a cheap tool, ${ROUNDS} alternating rounds\n`);
  console.log(
    "| configuration | p50 ms | p99 ms | p50 added over direct | p50 added over relay | p99 / direct |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.p50.toFixed(3)} | ${row.p99.toFixed(3)} | ${
        (row.p50 - direct.p50).toFixed(3)
      } | ${(row.p50 - relay.p50).toFixed(3)} | ${(row.p99 / direct.p99).toFixed(2)} |`,
    );
  }
  const http = rows.filter((row) => /http/.test(row.name));
  const synRow = http.find((row) => row.name.startsWith("syn"));
  if (synRow) {
    for (const other of http.filter((row) => row !== synRow)) {
      console.log(
        `syn --http / ${other.name}: p50 ${(synRow.p50 / other.p50).toFixed(2)}×, p99 ${
          (synRow.p99 / other.p99).toFixed(2)
        }×`,
      );
    }
  }
  for (const line of skipped) console.log(`skipped ${line}`);
  await newSessions(dir);
}

/** Time from a new client's connect to its first answer over `--http`: per session, and shared. */
async function newSessions(dir: string): Promise<void> {
  console.log("\n| --http, new session to first answer (20 sessions) | p50 ms | max ms |");
  console.log("|---|---:|---:|");
  for (
    const [name, flags] of [["an upstream per session", []], ["--shared-upstream", [
      "--shared-upstream",
    ]]] as const
  ) {
    const server = await serverChild(
      [
        DENO,
        "run",
        "-A",
        MAIN,
        "mcp-proxy",
        "--http",
        "127.0.0.1:0",
        "--no-auth",
        "--no-record",
        "--state-dir",
        `${dir}/sessions`,
        ...flags,
        "--",
        ...UPSTREAM,
      ],
      SYN_READY,
      (match) => match![1],
    );
    const times: number[] = [];
    try {
      for (let session = 0; session < 21; session++) {
        const started = performance.now();
        const transport = new StreamableHTTPClientTransport(new URL(server.url));
        const client = new Client({ name: "bench-proxy", version: "1.0.0" });
        await client.connect(transport);
        await client.callTool({ name: "echo", arguments: { text: "first" } });
        if (session > 0) times.push(performance.now() - started);
        await transport.terminateSession();
        await client.close();
      }
    } finally {
      await server.stop();
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${percentile(times, 0.5).toFixed(1)} | ${times.at(-1)!.toFixed(1)} |`);
  }
}

await main();
