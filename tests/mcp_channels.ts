import { fileURLToPath } from "node:url";
/**
 * Test plumbing for the validator service over every transport: a raw line channel
 * (send any text, read reply lines) and helpers that start the service in-process or
 * as `deno run main.ts mcp-serve` subprocesses.
 */
import {
  createValidatorHandler,
  type RunningValidatorServer,
  startValidatorServer,
  ValidatorService,
} from "../lib/mcp/mod.ts";
import {
  connectionFromConn,
  createMemoryConnectionPair,
  type RpcConnection,
  serveConnection,
} from "../lib/rpc/mod.ts";
import { type ByteReader, byteReader } from "../lib/core/mod.ts";
import { loadSchemaStore, type SchemaStore } from "../lib/schema/mod.ts";
import { childEnv } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";

export type TransportName = "memory" | "stdio" | "tcp" | "socket";

/** Reads reply lines from a connection (no size cap: the tests look at what is sent). */
export class LineChannel {
  readonly #connection: RpcConnection;
  readonly #reader: ByteReader;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(connection: RpcConnection) {
    this.#connection = connection;
    this.#reader = byteReader(connection.readable);
  }

  send(data: string | Uint8Array): Promise<void> {
    return this.#connection.write(data);
  }

  /** Sends one request object and returns the parsed reply line. */
  async request(message: unknown): Promise<Record<string, unknown>> {
    await this.send(JSON.stringify(message) + "\n");
    return JSON.parse(await this.readLine());
  }

  /** The next reply line; rejects when the connection ends first or after `timeoutMs`. */
  async readLine(timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        return line;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("no reply line in time");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const result = await Promise.race([
        this.#reader.read(),
        new Promise<"timeout">((
          resolve,
        ) => (timer = setTimeout(() => resolve("timeout"), remaining))),
      ]);
      clearTimeout(timer);
      if (result === "timeout") throw new Error("no reply line in time");
      if (result.done) throw new Error(`connection ended; unread: ${this.#buffer.slice(0, 200)}`);
      this.#buffer += this.#decoder.decode(result.value, { stream: true });
    }
  }

  /** True when the peer ends the stream (after any buffered lines) within `timeoutMs`. */
  async ended(timeoutMs = 10_000): Promise<boolean> {
    try {
      await this.readLine(timeoutMs);
      return false;
    } catch (error) {
      return String(error).includes("connection ended");
    }
  }

  close(): void {
    this.#reader.releaseLock();
    this.#connection.close();
  }
}

let storePromise: Promise<SchemaStore> | undefined;

/** The embedded schema store, loaded once per test file. */
export function sharedStore(): Promise<SchemaStore> {
  return storePromise ??= loadSchemaStore();
}

/** A service over the embedded store. */
export async function newService(options: { delayMs?: number } = {}): Promise<ValidatorService> {
  return new ValidatorService({ store: await sharedStore(), delayMs: options.delayMs });
}

/** A started service endpoint that hands out raw channels. */
export interface Harness {
  transport: TransportName;
  open(): Promise<LineChannel>;
  /** A connection for `validatorClientFromConnection` and SDK transports. */
  connect(): Promise<RpcConnection>;
  stop(): Promise<void>;
}

/** Starts the service on a transport: in-process for memory/tcp/socket, a subprocess for stdio. */
export async function startHarness(transport: TransportName): Promise<Harness> {
  const service = await newService();
  if (transport === "memory") {
    const sessions: Promise<void>[] = [];
    const connect = () => {
      const [serverSide, clientSide] = createMemoryConnectionPair();
      sessions.push(
        serveConnection(serverSide, createValidatorHandler(service)).finally(() =>
          serverSide.close()
        ),
      );
      return Promise.resolve(clientSide);
    };
    return {
      transport,
      connect,
      open: async () => new LineChannel(await connect()),
      stop: async () => {
        await Promise.all(sessions);
      },
    };
  }
  if (transport === "stdio") {
    const children: StdioChild[] = [];
    const connect = () => {
      const child = spawnStdioServer();
      children.push(child);
      return Promise.resolve(child.connection);
    };
    return {
      transport,
      connect,
      open: async () => new LineChannel(await connect()),
      stop: async () => {
        for (const child of children) await child.stop();
      },
    };
  }
  let server: RunningValidatorServer;
  let dir: string | undefined;
  if (transport === "tcp") {
    server = await startValidatorServer(
      { mode: "tcp", hostname: "127.0.0.1", port: 0 },
      () => createValidatorHandler(service),
    );
  } else {
    dir = await Deno.makeTempDir({ prefix: "syn_mcp_" });
    server = await startValidatorServer(
      { mode: "socket", path: `${dir}/mcp.sock` },
      () => createValidatorHandler(service),
    );
  }
  const opened: RpcConnection[] = [];
  const connect = async () => {
    const conn = transport === "tcp"
      ? await Deno.connect({ hostname: "127.0.0.1", port: Number(server.address.split(":")[1]) })
      : await Deno.connect({ transport: "unix", path: server.address });
    const connection = connectionFromConn(conn);
    opened.push(connection);
    return connection;
  };
  return {
    transport,
    connect,
    open: async () => new LineChannel(await connect()),
    stop: async () => {
      for (const connection of opened) connection.close();
      await server.shutdown();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A `deno run main.ts mcp-serve` child with piped stdio. */
export interface StdioChild {
  child: Deno.ChildProcess;
  connection: RpcConnection;
  stderr(): string;
  stop(): Promise<Deno.CommandStatus>;
}

/** Spawns `main.ts mcp-serve <args>` (default `--stdio`) with a private ready file. */
export function spawnStdioServer(
  options: { args?: string[]; env?: Record<string, string>; delayMs?: number } = {},
): StdioChild {
  const readyFile = Deno.makeTempFileSync({ prefix: "syn_mcp_ready_" });
  Deno.removeSync(readyFile);
  // A test hook (a delay before every tool call) is injected by a wrapper entry point.
  const entry = options.delayMs === undefined ? [...SELF_COMMAND.slice(1), "mcp-serve"] : [
    "run",
    "-A",
    fileURLToPath(new URL("./fakes/delayed_mcp_serve.ts", import.meta.url)),
    String(options.delayMs),
  ];
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...entry, ...(options.args ?? ["--stdio"])],
    // A cleared, explicit environment: a user's MCP_*/LABS_* cannot change the result.
    clearEnv: true,
    env: childEnv({ MCP_READY_FILE: readyFile, ...options.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errText = "";
  const decoder = new TextDecoder();
  const errDone = (async () => {
    for await (const chunk of child.stderr) errText += decoder.decode(chunk, { stream: true });
  })();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let closed = false;
  const connection: RpcConnection = {
    readable: child.stdout,
    write: (data) => writer.write(typeof data === "string" ? encoder.encode(data) : data),
    close() {
      if (closed) return;
      closed = true;
      writer.close().catch(() => {});
    },
  };
  let stopping: Promise<Deno.CommandStatus> | undefined;
  return {
    child,
    connection,
    stderr: () => errText,
    stop() {
      stopping ??= (async () => {
        connection.close();
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        const status = await child.status;
        clearTimeout(timer);
        await child.stdout.cancel().catch(() => {});
        await errDone;
        return status;
      })();
      return stopping;
    },
  };
}
