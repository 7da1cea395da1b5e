/**
 * Benchmarks of the validator service (`deno run -A scripts/bench_mcp.ts`):
 *
 * - sequential `validate_asset` of the conformance `SynestheticAsset_Example1` from one
 *   client on stdio, TCP and a Unix socket, side by side with a bare NDJSON echo server
 *   (parse each line, answer `{ok:true}`) on the same transport, same client, same run,
 *   the two measured in alternating blocks (A B A B …, ten of each) after a warm-up;
 * - 16 concurrent TCP clients against the service and against the echo server;
 * - start to ready (`mcp:ready` on stderr) of `syn mcp-serve --stdio`.
 *
 * Goals: service ≥ 0.5 × echo everywhere; ready ≤ 150 ms. Prints a table; asserts nothing.
 * Needs `../shared/conformance` for the asset and schema set. Options: `--requests N`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const shared = fileURLToPath(
  new URL("../../shared/conformance/synesthetic-schemas-0.7.3/", import.meta.url),
);
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------
// The echo server (run as a child of this script): the transport's own limit.

async function echoServer(mode: string, address: string): Promise<void> {
  const serve = async (
    readable: ReadableStream<Uint8Array>,
    write: (b: Uint8Array) => Promise<unknown>,
  ) => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of readable) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      let out = "";
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const request = JSON.parse(line);
        out += JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { ok: true } }) + "\n";
      }
      if (out) await write(encoder.encode(out));
    }
  };
  if (mode === "stdio") {
    const writer = Deno.stdout.writable.getWriter();
    console.error("mcp:ready mode=stdio");
    await serve(Deno.stdin.readable, (bytes) => writer.write(bytes));
    return;
  }
  const listener = mode === "tcp"
    ? Deno.listen({ hostname: "127.0.0.1", port: 0 })
    : Deno.listen({ transport: "unix", path: address });
  const shown = mode === "tcp" ? `127.0.0.1:${(listener.addr as Deno.NetAddr).port}` : address;
  console.error(`mcp:ready mode=${mode} address=${shown}`);
  for await (const conn of listener) {
    if (mode === "tcp") (conn as Deno.TcpConn).setNoDelay(true);
    const writer = conn.writable.getWriter();
    serve(conn.readable, (bytes) => writer.write(bytes)).catch(() => {}).finally(() => {
      try {
        conn.close();
      } catch { /* closed */ }
    });
  }
}

// ---------------------------------------------------------------------------------------
// One client for every server: write a line, wait for a line.

interface LineClient {
  roundTrip(line: string): Promise<string>;
  close(): void;
}

function lineReader() {
  let buffered = "";
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  return {
    push(text: string) {
      buffered += text;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const next = waiting.shift();
        if (next) next(line);
        else ready.push(line);
      }
    },
    next(): Promise<string> {
      const line = ready.shift();
      return line !== undefined
        ? Promise.resolve(line)
        : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

async function socketClient(
  address: { hostname: string; port: number } | { path: string },
): Promise<LineClient> {
  const conn = "path" in address
    ? await Deno.connect({ transport: "unix", path: address.path })
    : await Deno.connect({ hostname: address.hostname, port: address.port });
  if (!("path" in address)) (conn as Deno.TcpConn).setNoDelay(true);
  const reader = lineReader();
  const decoder = new TextDecoder();
  (async () => {
    try {
      for await (const chunk of conn.readable) reader.push(decoder.decode(chunk, { stream: true }));
    } catch { /* closed */ }
  })();
  const writer = conn.writable.getWriter();
  return {
    async roundTrip(line) {
      await writer.write(encoder.encode(line));
      return await reader.next();
    },
    close() {
      try {
        conn.close();
      } catch { /* closed */ }
    },
  };
}

interface Server {
  address: string;
  stdio?: LineClient;
  readyMs: number;
  /** `performance.now()` when the process was spawned. */
  started: number;
  stop(): Promise<void>;
}

/** Starts a server process with node:child_process (its parent-side pipes are the fast ones). */
function startServer(args: string[], env: Record<string, string>): Promise<Server> {
  const started = performance.now();
  const child = spawn(Deno.execPath(), args, {
    env: { ...Deno.env.toObject(), NO_COLOR: "1", RUST_BACKTRACE: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const reader = lineReader();
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (text: string) => reader.push(text));
  const stdio: LineClient = {
    roundTrip(line) {
      child.stdin!.write(line);
      return reader.next();
    },
    close() {
      child.stdin!.end();
    },
  };
  return new Promise((resolve, reject) => {
    let errText = "";
    let ready = false;
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (text: string) => {
      errText += text;
      const match = ready ? null : /mcp:ready mode=(\w+)(?: address=(\S+))?/.exec(errText);
      if (match) {
        ready = true;
        resolve({
          address: match[2] ?? "stdio",
          stdio,
          readyMs: performance.now() - started,
          started,
          stop: () =>
            new Promise((done) => {
              child.once("exit", () => done());
              child.stdin!.end();
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited early (${code}): ${errText}`)));
  });
}

async function clientFor(server: Server, mode: string): Promise<LineClient> {
  if (mode === "stdio") return server.stdio!;
  if (mode === "tcp") {
    const [hostname, port] = server.address.split(":");
    return await socketClient({ hostname, port: Number(port) });
  }
  return await socketClient({ path: server.address });
}

/** Blocks each side's requests are split into, measured alternately (A B A B …). */
const ROUNDS = 10;

/**
 * Sequential request rates of two servers on the same request, measured in alternating
 * blocks after a warm-up of each, so a slow moment of the machine falls on both.
 */
async function alternatingRates(
  service: LineClient,
  echo: LineClient,
  request: string,
  count: number,
): Promise<[number, number]> {
  for (const client of [service, echo]) {
    for (let index = 0; index < 50; index++) await client.roundTrip(request); // warm up
  }
  const spent = [0, 0];
  const block = Math.max(1, Math.ceil(count / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [side, client] of [service, echo].entries()) {
      const start = performance.now();
      for (let index = 0; index < block; index++) {
        const reply = await client.roundTrip(request);
        if (index === 0 && !reply.includes('"ok":true')) {
          throw new Error(`unexpected reply: ${reply.slice(0, 300)}`);
        }
      }
      spent[side] += performance.now() - start;
    }
  }
  const total = block * ROUNDS;
  return [total / (spent[0] / 1000), total / (spent[1] / 1000)];
}

async function concurrentRate(server: Server, request: string, clients: number, each: number) {
  const connections = await Promise.all(
    Array.from({ length: clients }, () => clientFor(server, "tcp")),
  );
  for (const connection of connections) await connection.roundTrip(request);
  const start = performance.now();
  await Promise.all(connections.map(async (connection) => {
    for (let index = 0; index < each; index++) await connection.roundTrip(request);
  }));
  const rate = (clients * each) / ((performance.now() - start) / 1000);
  for (const connection of connections) connection.close();
  return rate;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const { values } = parseArgs({ options: { requests: { type: "string" } } });
  const count = Number(values.requests ?? 3000);
  // A user's clone has no ../shared: fall back on our own schemas and canonical example.
  const haveShared = await Deno.stat(`${shared}examples/SynestheticAsset_Example1.json`).then(
    () => true,
    () => false,
  );
  if (!haveShared) {
    console.warn(
      "conformance data not found beside the repository; using schemas/ and canonical-baseline",
    );
  }
  const asset = JSON.parse(
    await Deno.readTextFile(
      haveShared
        ? `${shared}examples/SynestheticAsset_Example1.json`
        : fileURLToPath(new URL("../schemas/examples/canonical-baseline.json", import.meta.url)),
    ),
  );
  const request = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "validate_asset",
    params: { asset, schema: "synesthetic-asset" },
  }) + "\n";
  const env: Record<string, string> = haveShared
    ? { SYN_SCHEMAS_DIR: `${shared}jsonschema`, SYN_EXAMPLES_DIR: `${shared}examples` }
    : {};
  const dir = await Deno.makeTempDir({ prefix: "syn_bench_" });
  const rows: string[][] = [];
  try {
    for (const mode of ["stdio", "tcp", "socket"]) {
      const flag = mode === "stdio"
        ? ["--stdio"]
        : mode === "tcp"
        ? ["--tcp", "127.0.0.1:0"]
        : ["--socket", `${dir}/svc.sock`];
      const service = await startServer(["run", "-A", MAIN, "mcp-serve", ...flag], {
        ...env,
        MCP_READY_FILE: `${dir}/ready-${mode}`,
      });
      const echo = await startServer(
        ["run", "-A", SELF, "--echo-server", mode, `${dir}/echo.sock`],
        {},
      );
      const serviceClient = await clientFor(service, mode);
      const echoClient = await clientFor(echo, mode);
      const [serviceRate, echoRate] = await alternatingRates(
        serviceClient,
        echoClient,
        request,
        count,
      );
      rows.push([
        `sequential ${mode}`,
        serviceRate.toFixed(0),
        echoRate.toFixed(0),
        (serviceRate / echoRate).toFixed(2),
      ]);
      if (mode === "tcp") {
        const serviceConcurrent = await concurrentRate(service, request, 16, Math.ceil(count / 8));
        const echoConcurrent = await concurrentRate(echo, request, 16, Math.ceil(count / 8));
        rows.push([
          "16 clients tcp",
          serviceConcurrent.toFixed(0),
          echoConcurrent.toFixed(0),
          (serviceConcurrent / echoConcurrent).toFixed(2),
        ]);
      }
      if (mode !== "stdio") {
        serviceClient.close();
        echoClient.close();
      }
      await service.stop();
      await echo.stop();
    }
    const readies: Record<string, number[]> = { embedded: [], "SYN_SCHEMAS_DIR": [] };
    const firsts: Record<string, number[]> = { embedded: [], "SYN_SCHEMAS_DIR": [] };
    for (let run = 0; run < 9; run++) {
      for (const [label, extra] of [["embedded", {}], ["SYN_SCHEMAS_DIR", env]] as const) {
        const server = await startServer(["run", "-A", MAIN, "mcp-serve", "--stdio"], {
          ...extra,
          MCP_READY_FILE: `${dir}/ready-start`,
        });
        readies[label].push(server.readyMs);
        const reply = await server.stdio!.roundTrip(request);
        if (!reply.includes('"ok":true')) {
          throw new Error(`unexpected reply: ${reply.slice(0, 300)}`);
        }
        firsts[label].push(performance.now() - server.started);
        await server.stop();
      }
    }
    console.log(
      `validate_asset(SynestheticAsset_Example1), ${count} sequential requests per row ` +
        `(service and echo in ${ROUNDS} alternating blocks)`,
    );
    console.log("| case | service req/s | echo req/s | ratio (goal ≥ 0.5) |");
    console.log("|---|---:|---:|---:|");
    for (const row of rows) console.log(`| ${row.join(" | ")} |`);
    // The start-up issue's goal for the validator child every `generate` talks to.
    const stdioRatio = Number(rows.find((row) => row[0] === "sequential stdio")![3]);
    console.log(
      `stdio service / bare NDJSON echo: ${stdioRatio.toFixed(2)}× (goal ≥ 0.9×) ${
        stdioRatio >= 0.9 ? "holds" : "MISSED"
      }`,
    );
    for (const [label, times] of Object.entries(readies)) {
      console.log(
        `start to ready (mcp:ready, stdio, ${label} schemas, ${times.length} runs): ` +
          `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, ` +
          `max ${Math.max(...times).toFixed(0)} ms (goal ≤ 150 ms)`,
      );
    }
    for (const [label, times] of Object.entries(firsts)) {
      console.log(
        `start to first validate_asset answer (stdio, ${label} schemas, ${times.length} runs): ` +
          `median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, ` +
          `max ${Math.max(...times).toFixed(0)} ms`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const echoAt = Deno.args.indexOf("--echo-server");
  if (echoAt !== -1) await echoServer(Deno.args[echoAt + 1], Deno.args[echoAt + 2]);
  else await main();
}
