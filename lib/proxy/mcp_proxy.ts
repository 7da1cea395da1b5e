/**
 * `syn mcp-proxy`: a transparent MCP server in front of another one. Tools, resources,
 * prompts, completions and logging pass through unchanged (progress and cancellation of
 * tool calls too; list-changed and resource-updated notifications are forwarded); the
 * capabilities announced are the upstream's. Every `tools/call` is recorded as a tool
 * event in the state folder's event store, where `syn synthesize` mines it. The promoted
 * composites over the upstream's tools are offered as extra tools, run through the
 * upstream. A composite call is recorded as one call of the composite; its steps are not
 * recorded (they are the composite's, not the client's, and would count twice).
 *
 * Roots: the proxy declares the `roots` capability upstream. When the client declares it
 * too, the upstream is told the roots changed once the client is ready, and its
 * `roots/list` requests are answered by the client; otherwise with no roots, so an
 * upstream that falls back to its own configuration (server-filesystem's folders) keeps it.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Transport,
} from "@modelcontextprotocol/server";
import { errorMessage, VERSION } from "../core/mod.ts";
import type { Client } from "@modelcontextprotocol/client";
import {
  loadServerSide,
  type McpHttpServerOptions,
  type RunningMcpHttpServer,
} from "../mcp/mod.ts";
import { openEventStore, SynthesizedRegistry, ToolCallRecorder } from "../synthesize/mod.ts";
import { connectUpstream, listAllTools, upstreamSecrets, type UpstreamTarget } from "./upstream.ts";
import { offerComposites } from "./upstream_composites.ts";
import { serveToolCall } from "./_tool_call.ts";
import type { ProxyState } from "./_proxy_state.ts";
import { forwardNotifications, forwardRequests } from "./_forwarding.ts";
import { DrainingStdioServerTransport } from "./_stdio_transport.ts";

export interface McpProxyOptions {
  upstream: UpstreamTarget;
  /** The state folder: the event store (unless SYN_EVENT_STORE names one) and the registry. */
  stateDir: string;
  /** Offer composites with a step the upstream does not mark read-only. */
  allowWrites: boolean;
  /** `SYN_EVENT_STORE`: another event store than the state folder's SQLite file. */
  eventStore?: string;
  /** Secret values (keys, tokens) masked in what is recorded and reported. */
  secrets: readonly string[];
  /** A line for the operator (stderr): never the client's stream. */
  report: (line: string) => void;
  now?: () => number;
}

/** Most tool calls the client may have in flight at once through the proxy. */
export const MAX_CALLS_IN_FLIGHT = 64;

/**
 * An open proxy: the event store and the recorder, shared by every client session, and
 * a way to serve one more. Disposing it closes what sessions are still open, writes the
 * last events and closes the store.
 */
export interface McpProxy extends AsyncDisposable {
  /**
   * An MCP server for one client session, with an upstream connection of its own (the
   * upstream's roots, subscriptions and log level are per session, and its requests and
   * notifications must reach the right client). Closing the server closes that
   * connection. `sessionId` is recorded for calls that carry no MCP session id.
   */
  openSession(sessionId?: string): Promise<Server>;
  /** Connects to the upstream once and lets go: throws when it cannot be reached. */
  checkUpstream(): Promise<void>;
}

/** Opens the event store and the recorder; sessions are opened later, one per client. */
export async function openMcpProxy(options: McpProxyOptions): Promise<McpProxy> {
  const store = await openEventStore(options.stateDir, options.eventStore);
  const secrets = [...upstreamSecrets(options.upstream), ...options.secrets];
  const recorder = new ToolCallRecorder(store, {
    secrets,
    onError: (line) => options.report(`recording: ${line}`),
  });
  const upstreams = new Set<Client>();
  const said = new Set<string>();
  // Each session reads the composites: a reason one is left out is told once, not per session.
  const reportOnce = (line: string) => said.has(line) || (said.add(line), options.report(line));
  const openSession = (sessionId?: string) =>
    openProxySession({ ...options, report: reportOnce }, recorder, upstreams, sessionId);
  return {
    openSession,
    async checkUpstream() {
      await (await openSession()).close();
    },
    async [Symbol.asyncDispose]() {
      await Promise.all([...upstreams].map((upstream) => upstream.close().catch(() => {})));
      await recorder.close();
      await store.close();
    },
  };
}

async function openProxySession(
  options: McpProxyOptions,
  recorder: ToolCallRecorder,
  upstreams: Set<Client>,
  sessionId: string = crypto.randomUUID(),
): Promise<Server> {
  let server: Server | undefined;
  const upstream = await connectUpstream(options.upstream, {
    capabilities: { roots: { listChanged: true } },
    setup: (client) =>
      client.setRequestHandler(
        "roots/list",
        async (_request, ctx) =>
          server?.getClientCapabilities()?.roots
            ? await server.listRoots(undefined, { signal: ctx.mcpReq.signal })
            : { roots: [] },
      ),
  });
  upstreams.add(upstream);
  const closeUpstream = () => {
    if (upstreams.delete(upstream)) void upstream.close().catch(() => {});
  };
  try {
    const state: ProxyState = {
      upstream,
      recorder,
      composites: new Map(),
      upstreamTools: [],
      sessionId,
      now: options.now ?? Date.now,
      inFlight: { count: 0 },
    };
    await refreshComposites(state, options);
    const sessionServer = proxyServer(state, options);
    sessionServer.releaseUpstream = closeUpstream;
    sessionServer.onclose = closeUpstream;
    return server = sessionServer;
  } catch (error) {
    closeUpstream();
    throw error;
  }
}

/**
 * Serves one client on `transport` (standard input and output by default) until it goes
 * away; then writes the last events and closes the upstream. On standard input, the
 * requests still in flight when the input ends are answered (and their calls recorded)
 * before the connection closes, as a client that writes its requests and closes its end
 * (a shell pipe) expects. Calls are recorded under `sessionId` (default: one per run).
 */
export async function runMcpProxy(
  options: McpProxyOptions & { transport?: Transport; sessionId?: string },
): Promise<void> {
  await using proxy = await openMcpProxy(options);
  const server = await proxy.openSession(options.sessionId);
  const closed = new Promise<void>((resolve) => {
    const closeUpstream = server.onclose;
    server.onclose = () => {
      closeUpstream?.();
      resolve();
    };
  });
  await server.connect(options.transport ?? new DrainingStdioServerTransport());
  await closed;
}

/**
 * Serves the proxy over Streamable HTTP behind the edge (Host, Origin, bearer token), as
 * `syn mcp-serve --http` serves its tools: one MCP server instance and upstream connection
 * per MCP session (per request for the stateless 2026-era protocol); a call is recorded
 * under its MCP session id.
 */
export async function serveMcpProxyHttp(
  proxy: McpProxy,
  options: McpHttpServerOptions,
): Promise<RunningMcpHttpServer> {
  const { startMcpHttpServer } = await loadServerSide();
  return await startMcpHttpServer(() => proxy.openSession(), options);
}

/** Reads the upstream's tools and the promoted composites again (at start, on list change). */
export async function refreshComposites(
  state: ProxyState,
  options: Pick<McpProxyOptions, "stateDir" | "allowWrites" | "report">,
): Promise<void> {
  state.upstreamTools = await listAllTools(state.upstream);
  const promoted = await new SynthesizedRegistry(options.stateDir).promoted();
  const offer = offerComposites(promoted, state.upstreamTools, options);
  state.composites = new Map(offer.offered.map((item) => [item.tool.name, item]));
  for (const skipped of offer.skipped) {
    options.report(`composite.${skipped.tool_id} not offered: ${skipped.reason}`);
  }
}

/**
 * A session's server: lets go of its upstream connection when closed — also when it was
 * never connected, where the SDK's `close` does not call `onclose`.
 */
class SessionServer extends Server {
  releaseUpstream: () => void = () => {};

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.releaseUpstream();
    }
  }
}

function proxyServer(state: ProxyState, options: McpProxyOptions): SessionServer {
  const upstream = state.upstream;
  const capabilities = upstream.getServerCapabilities() ?? {};
  const info = upstream.getServerVersion() ?? { name: "syn-mcp-proxy", version: VERSION };
  const server = new SessionServer(info, {
    capabilities,
    instructions: upstream.getInstructions(),
  });
  if (capabilities.tools) {
    server.setRequestHandler("tools/list", async (request, ctx) => {
      const result = await upstream.listTools(request.params, { signal: ctx.mcpReq.signal });
      if (result.nextCursor) return result;
      return {
        ...result,
        tools: [...result.tools, ...[...state.composites.values()].map((item) => item.tool)],
      };
    });
    server.setRequestHandler("tools/call", (request, ctx) => {
      if (state.inFlight.count >= MAX_CALLS_IN_FLIGHT) {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `more than ${MAX_CALLS_IN_FLIGHT} tool calls in flight: try again when some finish`,
        );
      }
      return serveToolCall(state, request.params, ctx);
    });
  }
  forwardRequests(server, upstream, capabilities);
  forwardNotifications(server, upstream, async () => {
    try {
      await refreshComposites(state, options);
    } catch (error) {
      options.report(`could not read the upstream's tools again: ${errorMessage(error)}`);
    }
  });
  return server;
}
