import { errorMessage, redactText, type SynConfig, UsageError } from "../core/mod.ts";
import {
  claimReadyFile,
  createValidatorHandler,
  DEFAULT_READY_FILE,
  readyFileContent,
  releaseReadyFile,
  resolveMcpEndpoint,
  type RunningMcpHttpServer,
  type RunningValidatorServer,
  serveToolsHttp,
  serveToolsStdio,
  serveValidatorHttp,
  startValidatorServer,
  type ValidatorEndpoint,
  ValidatorService,
} from "../mcp/mod.ts";
import type { RpcConnection } from "../rpc/mod.ts";
import { loadSchemaStore } from "../schema/mod.ts";
import type { openToolsServing } from "./_mcp_serve_tools.ts";
import { type SandboxFlagValues, TOOLS_FLAGS } from "./_sandbox_flags.ts";
import { parseCommandArgs } from "./args.ts";
import {
  HTTP_FLAGS,
  type HttpServeTarget,
  parseHostPort,
  type ReadyLines,
  resolveHttpTarget,
  startHttpServing,
  stopSignal,
} from "./_http_serving.ts";
import { type CliIo, EXIT } from "./io.ts";

export const help =
  `syn mcp-serve — the validator service (JSON-RPC 2.0 over NDJSON) and an MCP server

Usage:
  syn mcp-serve [--stdio | --tcp HOST:PORT | --socket PATH] [--http HOST:PORT [options]]
  syn mcp-serve --tools --root DIR [--grant CAP]... [--state-dir DIR] [sandbox options]
                [--stdio] [--http HOST:PORT [options]]

Serves the tools list_schemas, get_schema, list_examples, get_example, validate_asset
(alias validate), diff_assets and populate_backend by method name, and the Model Context
Protocol (initialize or server/discover, tools/list, tools/call, resources/*) on the same
connection. One JSON object per line; lines over 1 MiB are rejected unread. Logs go to
stderr, stdout carries frames only. SIGINT/SIGTERM finish in-flight requests, then exit 0.

With --http, the same MCP tools and resources are served over Streamable HTTP on
http://HOST:PORT/mcp, for remote MCP clients. Every request must carry the token as
'Authorization: Bearer <token>': SYN_SERVER_TOKEN (shown as token=env:SYN_SERVER_TOKEN),
or one generated at start and printed on the ready line ("mcp:ready mode=http url=…
token=…"). --http alone serves only HTTP;
with --stdio, --tcp or --socket both run in one process on one service. Up to 64 MCP
sessions at once (more are refused with 503), closed after 10 minutes without a
request; request bodies over 1 MiB are refused (413).

With --tools, syn's sandboxed tools are served instead of the validator's: fs.read_text,
fs.list_dir, fs.write_text, shell.exec, http.get and every PROMOTED composite of the state
folder whose steps are those tools (composite.<tool_id>; a new MCP session sees one
promoted since the start), with their argument schemas and annotations (readOnlyHint,
destructiveHint, idempotentHint, openWorldHint). Each call runs in the sandbox of
'syn tools run' with the same flags, and answers the tool result as structuredContent
(and as JSON text); ok: false is isError: true with the error code (path_escape,
capability_required, ...). Every call is recorded as a tool event in the state folder's
event store (SYN_EVENT_STORE applies), its session the MCP session id (one id per stdio
connection), so 'syn synthesize mine' sees it with no ingest step. Secrets of the
environment are masked in what is recorded. Only the MCP transports: stdio (the default)
and --http (with its token, as above); --tcp and --socket are refused.

Options:
  --stdio             serve stdin/stdout (the default); ends at end of input
  --tcp HOST:PORT     listen on TCP (port 0 picks a free port; see the ready line)
  --socket PATH       listen on a Unix socket (a stale socket file is replaced)
  --http HOST:PORT    serve MCP over Streamable HTTP on /mcp (port 0 picks a free port)
  --allow-host NAME   with --http: also answer to this Host name, e.g. a reverse proxy's
                      (repeatable; loopback names and the bound address always work)
  --allow-origin O    with --http: pages of this origin (scheme://host[:port], e.g. a reverse
                      proxy's https://mcp.example.org) may call too; otherwise only the
                      server's own origin, port included (repeatable)
  --no-auth           with --http on a loopback address only: no token; any program on
                      this machine may call (web pages are still refused by the Host and
                      Origin checks). Refused on any other address (exit 2)
  -h, --help          show this help

Options of --tools (as for 'syn tools run'; see syn tools --help):
  --tools             serve syn's sandboxed tools and composites instead of the validator
  --root DIR          the sandbox root (required; must exist)
  --grant CAP         grant a capability to every session: net, net:<host> (repeatable)
  --net-allow-host H  the tools' network allowlist ('syn tools run --allow-host'; here
                      --allow-host is the HTTP Host allowlist) (repeatable)
  --shell-allow LIST  comma-separated programs added to the shell allowlist
  --timeout-s N       the longest one call may take, in seconds
  --state-dir DIR     events, http cache and composites (default $SYN_STATE_DIR, else .syn/)
  --no-cache          do not read or write the http cache
  --no-bubblewrap     never run shell.exec inside bubblewrap (it is then refused, unless
                      --shell-without-bubblewrap is given too)
  --shell-without-bubblewrap
                      let shell.exec run without bubblewrap (where it is missing, cannot
                      run, or is off). Unsafe against any other local process that can
                      write in the root: the path checks run before the program opens
                      the path, so a symlink swapped in between is followed outside the
                      root. Install bubblewrap instead: apt-get install bubblewrap

Environment (flags win):
  MCP_ENDPOINT        stdio | tcp | socket (unset: stdio, or tcp if MCP_HOST/MCP_PORT is set)
  MCP_HOST, MCP_PORT  TCP address for tcp (host defaults to 127.0.0.1)
  MCP_SOCKET_PATH     socket path when MCP_ENDPOINT=socket
  MCP_READY_FILE      ready file, default /tmp/mcp.ready ("<pid> <ISO8601>"); only a
                      stale ready file there is replaced — anything else (a device, a
                      link, your file) is left alone; with the default taken by a live
                      server, /tmp/mcp-<pid>.ready is used. With --http it is created
                      mode 0600, and one set here gets a second line
                      "http url=<url> token=<token>"
  SYN_SERVER_TOKEN    the --http bearer token (32+ printable characters; unset: generated)
  SYN_SCHEMAS_DIR, SYN_EXAMPLES_DIR       schema and example folders
  SYN_BACKEND_URL, SYN_BACKEND_ASSETS_PATH  enable populate_backend (default path
                      /synesthetic-assets/)

Examples:
  syn mcp-serve
  syn mcp-serve --tcp 127.0.0.1:7000
  syn mcp-serve --http 127.0.0.1:8765
  syn mcp-serve --tools --root ./work --state-dir ./work-state
  syn mcp-serve --tools --root ./work --grant net:example.com --http 127.0.0.1:8766
  SYN_SERVER_TOKEN=… syn mcp-serve --http 0.0.0.0:8765 --allow-host mcp.example.org
  echo '{"jsonrpc":"2.0","id":1,"method":"list_schemas"}' | syn mcp-serve
`;

/** Where to listen, before any socket is opened. */
export type ServeTarget =
  | { mode: "stdio" }
  | { mode: "tcp"; hostname: string; port: number }
  | { mode: "socket"; path: string };

/**
 * Flags win over `MCP_ENDPOINT`/`MCP_HOST`/`MCP_PORT`/`MCP_SOCKET_PATH`. Without a flag the
 * configuration is read by the parser the validator client uses (`resolveMcpEndpoint`,
 * server role: port 0 is any free port), so one configuration makes both ends meet.
 */
export function resolveServeTarget(
  flags: { stdio?: boolean; tcp?: string; socket?: string },
  config: Pick<SynConfig, "mcp">,
  warn: (line: string) => void = () => {},
): ServeTarget {
  const chosen = [flags.stdio, flags.tcp !== undefined, flags.socket !== undefined]
    .filter(Boolean).length;
  if (chosen > 1) throw new UsageError("choose one of --stdio, --tcp and --socket");
  if (flags.stdio) return { mode: "stdio" };
  if (flags.tcp !== undefined) return { mode: "tcp", ...parseHostPort(flags.tcp) };
  if (flags.socket !== undefined) {
    if (flags.socket === "") throw new UsageError("--socket takes a path");
    return { mode: "socket", path: flags.socket };
  }
  const target = resolveMcpEndpoint(config.mcp, "server", {
    warn: (line) => warn(`mcp:warn ${line}`),
  });
  if (target.transport === "stdio") return { mode: "stdio" };
  if (target.transport === "socket") return { mode: "socket", path: target.path };
  return { mode: "tcp", hostname: target.hostname, port: target.port };
}

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
    ...HTTP_FLAGS,
    tools: { type: "boolean" },
    ...TOOLS_FLAGS,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  const secrets = io.config.secrets;
  const log = (line: string) => void io.stderr(redactText(line, secrets) + "\n");
  const http = resolveHttpTarget(values, io.config);
  if (values.tools) return await runToolsServe(values, io, log, http);
  const stray = Object.keys(TOOLS_FLAGS).find((flag) => flag in values);
  if (stray) throw new UsageError(`--${stray} needs --tools`);
  // With --http alone only HTTP is served; an NDJSON endpoint joins it when one is asked for.
  const ndjson = values.stdio || values.tcp !== undefined || values.socket !== undefined;
  const target = ndjson || !http ? resolveServeTarget(values, io.config, log) : undefined;

  // Discovery (reading schemas and examples) happens before the loop, as MCP spec §3
  // asks; a folder's schemas are compiled right after the server is ready, and the
  // first requests wait for that.
  const store = await loadSchemaStore({
    schemasDir: io.config.schemasDir,
    examplesDir: io.config.examplesDir,
    deferCompile: true,
  });
  const backendUrl = io.config.backend.url;
  const service = new ValidatorService({
    store,
    backend: backendUrl ? { url: backendUrl, assetsPath: io.config.backend.assetsPath } : undefined,
    log,
    delayMs: hooks.delayMs,
  });

  const servers: Served[] = [];
  try {
    if (target) servers.push(await startNdjson(target, service, io, log));
    if (http) {
      servers.push(
        await startHttpServing(http, (options) => serveValidatorHttp(service, options), log),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.shutdown()));
    throw error;
  }
  return await runUntilStopped(servers, io, log, () => store.ready());
}

/** A running server of either kind, as the process model sees it. */
type Served = (RunningValidatorServer | RunningMcpHttpServer) & {
  ready: ReadyLines;
};

/**
 * `--tools`: syn's sandboxed tools and promoted composites instead of the validator, over
 * the MCP transports only — stdio (the default) and `--http`; NDJSON over TCP or a socket
 * has no MCP client to talk to.
 */
async function runToolsServe(
  values: SandboxFlagValues & { "net-allow-host"?: string[] } & McpServeTransportFlags,
  io: CliIo,
  log: (line: string) => void,
  http: HttpServeTarget | undefined,
): Promise<number> {
  if (values.tcp !== undefined || values.socket !== undefined) {
    throw new UsageError("--tools serves MCP on stdio and --http only, not --tcp or --socket");
  }
  // Loaded only here: the validator service never loads the event store.
  const serving: { openToolsServing: typeof openToolsServing } = await import(
    new URL("./_mcp_serve_tools.ts", import.meta.url).href
  );
  await using tools = await serving.openToolsServing(values, io, log);
  log(`mcp:tools recording=${JSON.stringify(tools.recordingTo)}`);
  const servers: Served[] = [];
  try {
    if (values.stdio || !http) {
      const stdio = await serveToolsStdio(stdioConnection(io), tools.options);
      servers.push(Object.assign(stdio, { ready: { line: "mode=stdio", file: "" } }));
    }
    if (http) {
      servers.push(
        await startHttpServing(
          http,
          (options) => serveToolsHttp({ ...tools.options, ...options }),
          log,
        ),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.shutdown()));
    throw error;
  }
  return await runUntilStopped(servers, io, log, () => Promise.resolve());
}

interface McpServeTransportFlags {
  stdio?: boolean;
  tcp?: string;
  socket?: string;
}

/** Standard input and output as a connection (stdout carries frames only). */
function stdioConnection(io: CliIo): RpcConnection {
  return {
    readable: io.stdin,
    write: async (data) =>
      await io.stdout(typeof data === "string" ? data : new TextDecoder().decode(data)),
    close() {},
  };
}

async function startNdjson(
  target: ServeTarget,
  service: ValidatorService,
  io: CliIo,
  log: (line: string) => void,
): Promise<Served> {
  const endpoint: ValidatorEndpoint = target.mode === "stdio"
    ? { mode: "stdio", connection: stdioConnection(io) }
    : target;
  const running = await startValidatorServer(
    endpoint,
    () => createValidatorHandler(service, { log }),
    { log },
  );
  const address = running.mode === "stdio" ? "" : ` address=${running.address}`;
  return Object.assign(running, { ready: { line: `mode=${running.mode}${address}`, file: "" } });
}

/** The process model (MCP spec §3, §10): ready file and line, signals, clean exit. */
async function runUntilStopped(
  servers: Served[],
  io: CliIo,
  log: (line: string) => void,
  compile: () => Promise<void>,
): Promise<number> {
  const explicit = io.config.mcp.readyFile;
  // The token goes only into a ready file that was asked for (MCP_READY_FILE), never into
  // the shared default; with HTTP served the file is the owner's alone (0600) either way.
  const extra = explicit ? servers.map((server) => server.ready.file) : [];
  const content = readyFileContent({ pid: Deno.pid, readyAt: new Date(), lines: extra });
  const mode = servers.some((server) => server.mode === "http") ? 0o600 : 0o644;
  let readyFile: string | undefined;
  using stop = stopSignal();
  const shutdownAll = () => Promise.all(servers.map((server) => server.shutdown()));
  try {
    readyFile = claimReadyFile(explicit || DEFAULT_READY_FILE, content, {
      isDefault: !explicit,
      warn: log,
      mode,
    });
    for (const server of servers) log(`mcp:ready ${server.ready.line}`);
    // Until stdin ends (stdio) or a signal comes; then in-flight requests are answered,
    // within the shutdown grace period even when the peer has stopped reading.
    // A schema set that cannot compile is fatal: it is reported and the server stops.
    const broken = compile().then(() => new Promise<never>(() => {}), (error: unknown) => error);
    const fatal = await Promise.race([
      ...servers.map((server) => server.finished.then(() => undefined)),
      stop.requested,
      broken,
    ]);
    await shutdownAll();
    if (fatal !== undefined) {
      log(`mcp:error detail=${JSON.stringify(errorMessage(fatal))}`);
      return EXIT.failure;
    }
    for (const server of servers) log(`mcp:shutdown mode=${server.mode}`);
    return EXIT.ok;
  } finally {
    if (readyFile) await releaseReadyFile(readyFile, content);
  }
}
