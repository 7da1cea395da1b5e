import {
  errorMessage,
  redactText,
  secretsFromEnv,
  UsageError,
  utf8ByteLength,
} from "../core/mod.ts";
import {
  createValidatorHandler,
  type RunningValidatorServer,
  startValidatorServer,
  type ValidatorEndpoint,
  ValidatorService,
} from "../mcp/mod.ts";
import { loadSchemaStore } from "../schema/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";

export const help =
  `syn mcp-serve — the validator service (JSON-RPC 2.0 over NDJSON) and an MCP server

Usage:
  syn mcp-serve [--stdio | --tcp HOST:PORT | --socket PATH]

Serves the tools list_schemas, get_schema, list_examples, get_example, validate_asset
(alias validate), diff_assets and populate_backend by method name, and the Model Context
Protocol (initialize or server/discover, tools/list, tools/call, resources/*) on the same
connection. One JSON object per line; lines over 1 MiB are rejected unread. Logs go to
stderr, stdout carries frames only. SIGINT/SIGTERM finish in-flight requests, then exit 0.

Options:
  --stdio             serve stdin/stdout (the default); ends at end of input
  --tcp HOST:PORT     listen on TCP (port 0 picks a free port; see the ready line)
  --socket PATH       listen on a Unix socket (a stale socket file is replaced)
  -h, --help          show this help

Environment (flags win):
  MCP_ENDPOINT        stdio | tcp | socket (unset: stdio, or tcp if MCP_HOST/MCP_PORT is set)
  MCP_HOST, MCP_PORT  TCP address for tcp (host defaults to 127.0.0.1)
  MCP_SOCKET_PATH     socket path when MCP_ENDPOINT=socket
  MCP_READY_FILE      ready file, default /tmp/mcp.ready ("<pid> <ISO8601>"); only a
                      stale ready file there is replaced — anything else (a device, a
                      link, your file) is left alone; with the default taken by a live
                      server, /tmp/mcp-<pid>.ready is used
  SYN_SCHEMAS_DIR, SYN_EXAMPLES_DIR       schema and example folders
  SYN_BACKEND_URL, SYN_BACKEND_ASSETS_PATH  enable populate_backend (default path
                      /synesthetic-assets/)

Examples:
  syn mcp-serve
  syn mcp-serve --tcp 127.0.0.1:7000
  echo '{"jsonrpc":"2.0","id":1,"method":"list_schemas"}' | syn mcp-serve
`;

/** Where to listen, before any socket is opened. */
export type ServeTarget =
  | { mode: "stdio" }
  | { mode: "tcp"; hostname: string; port: number }
  | { mode: "socket"; path: string };

/**
 * Flags win over `MCP_ENDPOINT`/`MCP_HOST`/`MCP_PORT`/`MCP_SOCKET_PATH`. Without a flag the
 * environment is read the way the validator client reads it (Labs spec transport table),
 * so one configuration makes both ends meet: no `MCP_ENDPOINT` and no `MCP_HOST`/`MCP_PORT`
 * → stdio; only `MCP_HOST`/`MCP_PORT` → tcp; an unknown `MCP_ENDPOINT` → tcp with a warning.
 */
export function resolveServeTarget(
  flags: { stdio?: boolean; tcp?: string; socket?: string },
  env: (name: string) => string | undefined,
  warn: (line: string) => void = () => {},
): ServeTarget {
  const chosen = [flags.stdio, flags.tcp !== undefined, flags.socket !== undefined]
    .filter(Boolean).length;
  if (chosen > 1) throw new UsageError("choose one of --stdio, --tcp and --socket");
  if (flags.stdio) return { mode: "stdio" };
  if (flags.tcp !== undefined) return parseHostPort(flags.tcp);
  if (flags.socket !== undefined) {
    if (flags.socket === "") throw new UsageError("--socket takes a path");
    return { mode: "socket", path: flags.socket };
  }
  const raw = env("MCP_ENDPOINT")?.trim() ?? "";
  let endpoint = raw.toLowerCase();
  if (endpoint === "") {
    if (!env("MCP_HOST") && !env("MCP_PORT")) return { mode: "stdio" };
    endpoint = "tcp";
  } else if (endpoint !== "stdio" && endpoint !== "tcp" && endpoint !== "socket") {
    // Labs spec: an invalid MCP_ENDPOINT falls back to tcp.
    warn(`mcp:warn MCP_ENDPOINT=${JSON.stringify(raw)} is not stdio, tcp or socket; using tcp`);
    endpoint = "tcp";
  }
  if (endpoint === "stdio") return { mode: "stdio" };
  if (endpoint === "socket") {
    const path = env("MCP_SOCKET_PATH");
    if (!path) throw new UsageError("MCP_ENDPOINT=socket needs MCP_SOCKET_PATH");
    return { mode: "socket", path };
  }
  const port = env("MCP_PORT")?.trim();
  if (!port) throw new UsageError("tcp needs MCP_PORT (and MCP_HOST, default 127.0.0.1)");
  const hostname = env("MCP_HOST")?.trim() || "127.0.0.1";
  return {
    mode: "tcp",
    hostname,
    port: numberFlag("MCP_PORT", port, { integer: true, min: 0, max: 65535 })!,
  };
}

function parseHostPort(value: string): ServeTarget {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!match) throw new UsageError(`--tcp takes HOST:PORT: ${value}`);
  const hostname = match[1] ?? (match[2] || "127.0.0.1");
  const port = numberFlag("tcp", match[3], { integer: true, min: 0, max: 65535 })!;
  return { mode: "tcp", hostname, port };
}

const DEFAULT_READY_FILE = "/tmp/mcp.ready";

export function run(args: string[], io: CliIo): Promise<number> {
  return runMcpServe(args, io);
}

/** Hooks tests inject into a real server process (never read from the environment). */
export interface McpServeHooks {
  /** Every tool call waits this long first (to test shutdown with requests in flight). */
  delayMs?: number;
}

/** `syn mcp-serve` with injectable test hooks (see `tests/fakes/delayed_mcp_serve.ts`). */
export async function runMcpServe(
  args: string[],
  io: CliIo,
  hooks: McpServeHooks = {},
): Promise<number> {
  const { values, positionals } = parseCommandArgs("mcp-serve", args, {
    stdio: { type: "boolean" },
    tcp: { type: "string" },
    socket: { type: "string" },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const secrets = secretsFromEnv(io.env);
  const log = (line: string) => void io.stderr(redactText(line, secrets) + "\n");
  const target = resolveServeTarget(values, io.env, log);

  // Discovery (reading schemas and examples) happens before the loop, as MCP spec §3
  // asks; a folder's schemas are compiled right after the server is ready, and the
  // first requests wait for that.
  const store = await loadSchemaStore({
    schemasDir: io.env("SYN_SCHEMAS_DIR") || undefined,
    examplesDir: io.env("SYN_EXAMPLES_DIR") || undefined,
    deferCompile: true,
  });
  const backendUrl = io.env("SYN_BACKEND_URL");
  const service = new ValidatorService({
    store,
    backend: backendUrl
      ? { url: backendUrl, assetsPath: io.env("SYN_BACKEND_ASSETS_PATH") || undefined }
      : undefined,
    log,
    delayMs: hooks.delayMs,
  });

  const endpoint: ValidatorEndpoint = target.mode === "stdio"
    ? {
      mode: "stdio",
      connection: {
        readable: io.stdin,
        write: async (data) =>
          await io.stdout(typeof data === "string" ? data : new TextDecoder().decode(data)),
        close() {},
      },
    }
    : target;
  const server = await startValidatorServer(
    endpoint,
    () => createValidatorHandler(service, { log }),
    { log },
  );
  return await runUntilStopped(server, io, log, () => store.ready());
}

/** The process model (MCP spec §3, §10): ready file and line, signals, clean exit. */
async function runUntilStopped(
  server: RunningValidatorServer,
  io: CliIo,
  log: (line: string) => void,
  compile: () => Promise<void>,
): Promise<number> {
  const explicit = io.env("MCP_READY_FILE");
  const readyLine = `${Deno.pid} ${new Date().toISOString()}\n`;
  let readyFile: string | undefined;
  const stopRequested = Promise.withResolvers<void>();
  const stop = () => stopRequested.resolve();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  try {
    readyFile = claimReadyFile(explicit || DEFAULT_READY_FILE, readyLine, {
      isDefault: !explicit,
      warn: log,
    });
    const address = server.mode === "stdio" ? "" : ` address=${server.address}`;
    log(`mcp:ready mode=${server.mode}${address}`);
    // Until stdin ends (stdio) or a signal comes; then in-flight requests are answered,
    // within the shutdown grace period even when the peer has stopped reading.
    // A schema set that cannot compile is fatal: it is reported and the server stops.
    const broken = compile().then(() => new Promise<never>(() => {}), (error: unknown) => error);
    const fatal = await Promise.race([
      server.finished.then(() => undefined),
      stopRequested.promise,
      broken,
    ]);
    await server.shutdown();
    if (fatal !== undefined) {
      log(`mcp:error detail=${JSON.stringify(errorMessage(fatal))}`);
      return EXIT.failure;
    }
    log(`mcp:shutdown mode=${server.mode}`);
    return EXIT.ok;
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
    if (readyFile) await removeIfOurs(readyFile, readyLine);
  }
}

/** A ready file's content: `<pid> <ISO8601>` and a newline (MCP spec §3). */
const READY_LINE = /^(\d+) \S+\n$/;

/** True while a process with this id exists (Linux: /proc). */
function processAlive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is at `path` now: nothing, a ready file of a server that is gone (ours to
 * replace), a ready file of a live server, or something else entirely — a device such as
 * /dev/null, a folder, a link, a FIFO, a user's file — which is never touched.
 */
function readyFileState(path: string): "free" | "stale" | "live" | "foreign" {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return "free";
  }
  if (!info.isFile || info.size > 128) return "foreign";
  let text = "";
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return "foreign";
  }
  const match = READY_LINE.exec(text);
  if (!match) return "foreign";
  return processAlive(Number(match[1])) ? "live" : "stale";
}

/**
 * Creates the ready file and returns its path, or `undefined` (with a warning) when none
 * can be made. Only a stale ready file is replaced; with the default path taken by a live
 * server, this one gets `/tmp/mcp-<pid>.ready` instead, so two servers never share one.
 * O_CREAT|O_EXCL never follows a link planted at the path. Synchronous on purpose: the
 * server is already reading, and no request may be answered before the file exists.
 */
export function claimReadyFile(
  path: string,
  content: string,
  options: { isDefault: boolean; warn: (line: string) => void },
): string | undefined {
  const state = readyFileState(path);
  if (state === "stale") {
    try {
      Deno.removeSync(path);
    } catch {
      // gone meanwhile
    }
  }
  if (state === "free" || state === "stale") {
    try {
      Deno.writeTextFileSync(path, content, { createNew: true, mode: 0o644 });
      return path;
    } catch (error) {
      options.warn(
        `mcp:warn ready_file=${JSON.stringify(path)} detail=${JSON.stringify(errorMessage(error))}`,
      );
      return undefined;
    }
  }
  const what = state === "live"
    ? "belongs to another running server"
    : "exists and is not a ready file";
  if (options.isDefault) {
    const own = `/tmp/mcp-${Deno.pid}.ready`;
    options.warn(`mcp:warn ready_file=${JSON.stringify(path)} ${what}; using ${own}`);
    return claimReadyFile(own, content, { ...options, isDefault: false });
  }
  options.warn(
    `mcp:warn ready_file=${JSON.stringify(path)} ${what}; left untouched, no ready file written`,
  );
  return undefined;
}

/** Removes the ready file unless another server has replaced it since. */
async function removeIfOurs(path: string, content: string): Promise<void> {
  try {
    // Only a small regular file can be ours: never read through a link, a pipe or a device.
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size !== utf8ByteLength(content)) return;
    if (await Deno.readTextFile(path) === content) await Deno.remove(path);
  } catch {
    // already gone
  }
}
