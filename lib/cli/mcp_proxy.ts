import { neutralizeTerminalText, redactText, SynError, UsageError } from "../core/mod.ts";
import {
  describeUpstream,
  type McpProxyOptions,
  openMcpProxy,
  runMcpProxy,
  serveMcpProxyHttp,
  upstreamSecrets,
} from "../proxy/mod.ts";
import { upstreamFromFlags } from "./_upstream_flags.ts";
import { parseCommandArgs } from "./args.ts";
import {
  HTTP_FLAGS,
  type HttpServeTarget,
  resolveHttpTarget,
  startHttpServing,
  stopSignal,
} from "./_http_serving.ts";
import { stateDirectory } from "./_state_dir.ts";
import { type CliIo, EXIT } from "./io.ts";

export const help =
  `syn mcp-proxy — record any MCP server's tool calls, and serve composites over its tools

Usage:
  syn mcp-proxy [--state-dir DIR] [--allow-writes] [--no-record]
                [--http HOST:PORT [--shared-upstream] [options]] -- <command> [args…]
  syn mcp-proxy [--state-dir DIR] [--allow-writes] [--no-record] [--http HOST:PORT [options]]
                --upstream-url URL [--upstream-header-env 'Name=ENV_NAME']...

Put syn mcp-proxy where your MCP client starts a server, with that server after '--'. The
client sees the same server: its tools, resources, prompts, completions, logging and
capabilities, unchanged (tasks excepted: they are not advertised). The server sees the
same client: it is told what the client declared (sampling, elicitation with its modes,
roots), and its requests to the client (sampling/createMessage, elicitation/create,
roots/list) reach the client, with the answers, errors (-32042 included), progress and
cancellation carried back. The proxy speaks MCP on stdin/stdout; its own messages go to
stderr, and the server's stderr lines too, each prefixed with the server's name. When
stdin ends, the requests still in flight are answered and recorded; then the server's
input is closed and it gets a bounded grace to exit (2 s, then SIGTERM, 2 s more, then
SIGKILL) before the proxy exits, so its last writes are done. SIGINT/SIGTERM end the
session the same way.

With --http, it serves MCP over Streamable HTTP on http://HOST:PORT/mcp instead, as
'syn mcp-serve --http' does, for clients that connect by URL: every request must carry
'Authorization: Bearer <token>', the token SYN_SERVER_TOKEN (shown as
token=env:SYN_SERVER_TOKEN) or one generated at start and printed on the ready line
("mcp-proxy: mcp:ready mode=http url=… token=…"). Each MCP session gets its own
connection to the upstream (a command started for it, or a session of the upstream URL),
ended with the session (the command's input closed, the upstream session DELETEd); its
calls are recorded under its MCP session id. Up to 64 sessions at once, closed after 10
minutes without a request. SIGINT/SIGTERM finish calls in flight, end every upstream
connection, then exit 0.

What it adds:
  recording   every tools/call becomes a tool event in the state folder's event store:
              tool, arguments (secrets masked), output summary (structured content as
              JSON, else the text; capped at 4096 characters), outcome (SUCCESS, FAILURE
              for isError or a JSON-RPC error, TIMEOUT), latency, and the session (one per
              proxy run on stdio, the MCP session id with --http). 'syn synthesize' mines
              them as they are: no ingest step. Events are queued and written in batches:
              a call never waits on the store, and a store that fails never fails a call
              (it is reported once on stderr). --no-record turns recording off.
  composites  the PROMOTED composites whose steps are all tools this server lists are
              offered as extra tools, composite.<tool_id>, with the composite's parameters;
              each step runs as a call to this server (the composite plan: waves, the
              concurrency cap, wiring, the error strategy). A composite with a step the
              server does not annotate readOnlyHint: true is offered only with
              --allow-writes; its annotations are the most permissive of its steps'. A
              composite call is recorded as one call of composite.<tool_id>; its steps are
              not recorded (they are not the client's calls).

Options:
  --state-dir DIR          the state folder (default $SYN_STATE_DIR, else .syn/ here); events
                           in DIR/events.sqlite unless SYN_EVENT_STORE names a Postgres URL;
                           composites from DIR/synthesized/
  --allow-writes           also offer composites with a step that may write
  --no-record              record nothing (no event store is opened)
  --upstream-url URL       an upstream on Streamable HTTP instead of a command
  --upstream-header-env 'Name=ENV_NAME'
                           a header sent to it whose value is the environment variable
                           ENV_NAME's (repeatable), e.g. 'Authorization=MCP_UPSTREAM_AUTH';
                           the value never appears in the process list, and is masked
                           wherever calls are recorded and never printed
  --upstream-header-file FILE
                           headers sent to it, one 'Name: value' per line (# comments); the
                           file must be readable by its owner only (chmod 600), else refused
  --upstream-header 'N: v' a header given on the command line (repeatable): every local
                           user can read it in the process list, so not for secrets
  --http HOST:PORT         serve MCP over Streamable HTTP on /mcp (port 0 picks a free port)
  --shared-upstream        with --http: one upstream connection for every session (for
                           servers that keep no per-client state): a new session costs no
                           new process; the server's requests to a client go to the session
                           with a request in flight, and are refused when several have one
  --allow-host NAME        with --http: also answer to this Host name, e.g. a reverse proxy's
                           (repeatable; loopback names and the bound address always work)
  --allow-origin O         with --http: pages of this origin (scheme://host[:port]) may call
                           too; otherwise only the server's own origin, port included
  --no-auth                with --http on a loopback address only: no token (web pages are
                           still refused by the Host and Origin checks); refused elsewhere
  -h, --help               show this help

An upstream that refuses says so: its HTTP status and the start of its answer (e.g. "the
upstream answered HTTP 401 Unauthorized: …"), or a command's last stderr lines.

The loop, from recorded traffic to a promoted composite:
  syn synthesize run --top 1
  syn synthesize validate <tool-id> --execute --upstream -- <command> [args…]
  syn synthesize approve <tool-id> --promote
  syn synthesize report
(validate executes only chains of read-only tools, against the live server, and scores the
composite against the original calls re-run.)

Examples:
  syn mcp-proxy -- node ./node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ~/notes
  export MCP_UPSTREAM_AUTH="Bearer $TOKEN"
  syn mcp-proxy --state-dir ~/.syn --upstream-url https://mcp.example.com/mcp \\
                --upstream-header-env 'Authorization=MCP_UPSTREAM_AUTH'
  syn mcp-proxy --http 127.0.0.1:8767 -- node ./server.js ~/notes

Exit codes: 0 the client disconnected (with --http: stopped by a signal), 2 bad usage or
the upstream could not be started.
`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const split = args.indexOf("--");
  const command = split < 0 ? [] : args.slice(split + 1);
  const { values, positionals } = parseCommandArgs(
    "mcp-proxy",
    split < 0 ? args : args.slice(0, split),
    {
      "state-dir": { type: "string" },
      "allow-writes": { type: "boolean" },
      "upstream-url": { type: "string" },
      "upstream-header": { type: "string", multiple: true },
      "upstream-header-env": { type: "string", multiple: true },
      "upstream-header-file": { type: "string", multiple: true },
      "shared-upstream": { type: "boolean" },
      "no-record": { type: "boolean" },
      ...HTTP_FLAGS,
    },
  );
  if (values.help) return await io.stdout(help), EXIT.ok;
  if (positionals.length) {
    throw new UsageError(
      `put the upstream's command after --: ${neutralizeTerminalText(positionals[0])}`,
    );
  }
  const upstream = await upstreamFromFlags(values, command, {
    environment: io.environment?.(),
    cwd: io.cwd,
  });
  const http = resolveHttpTarget(values, io.config);
  if (values["shared-upstream"] && !http) {
    throw new UsageError("--shared-upstream goes with --http (on stdio there is one session)");
  }
  // Header values are secrets: masked in every line, whatever reports it.
  const secrets = upstreamSecrets(upstream);
  const write = (line: string) =>
    io.stderr(`mcp-proxy: ${neutralizeTerminalText(redactText(line, secrets))}\n`);
  const report = (line: string) => void write(line);
  const options: McpProxyOptions = {
    upstream: upstream.kind === "stdio"
      ? { ...upstream, cwd: io.cwd, env: io.environment?.() }
      : upstream,
    stateDir: stateDirectory(io, values["state-dir"]),
    allowWrites: values["allow-writes"] ?? false,
    eventStore: io.config.eventStore,
    secrets: io.config.secrets,
    report,
    sharedUpstream: values["shared-upstream"] ?? false,
    record: !values["no-record"],
  };
  try {
    if (http) return await serveHttp(options, http, report);
    using stop = stopSignal();
    const stopped = new AbortController();
    void stop.requested.then(() => stopped.abort());
    await runMcpProxy({ ...options, signal: stopped.signal });
  } catch (error) {
    if (error instanceof UsageError || error instanceof SynError) throw error;
    await write(
      `could not serve through ${describeUpstream(upstream)}: ${(error as Error).message}`,
    );
    return EXIT.usage;
  }
  return EXIT.ok;
}

/** `--http`: serves until SIGINT or SIGTERM, then lets calls in flight finish. */
async function serveHttp(
  options: McpProxyOptions,
  target: HttpServeTarget,
  report: (line: string) => void,
): Promise<number> {
  await using proxy = await openMcpProxy(options);
  // An upstream that cannot be reached is bad usage now, not an error in a client's session.
  await proxy.checkUpstream();
  using stop = stopSignal();
  const server = await startHttpServing(
    target,
    (httpOptions) => serveMcpProxyHttp(proxy, httpOptions),
    report,
  );
  report(`mcp:ready ${server.ready.line}`);
  await Promise.race([server.finished, stop.requested]);
  await server.shutdown();
  // Every upstream connection ended (sessions deleted, commands exited) before the last line.
  await proxy[Symbol.asyncDispose]();
  report("mcp:shutdown mode=http");
  return EXIT.ok;
}
