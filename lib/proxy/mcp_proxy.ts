/**
 * `syn mcp-proxy`: a transparent MCP server in front of another one. Tools, resources,
 * prompts, completions and logging pass through unchanged (progress and cancellation of
 * tool calls too; list-changed and resource-updated notifications are forwarded); the
 * capabilities announced are the upstream's, but for tasks, which are not carried. Every
 * `tools/call` is recorded as a tool event in the state folder's event store (unless
 * recording is off), where `syn synthesize` mines it. The promoted composites over the
 * upstream's tools are offered as extra tools, run through the upstream. A composite call
 * is recorded as one call of the composite; its steps are not recorded (they are the
 * composite's, not the client's, and would count twice).
 *
 * The client's side passes through too: the upstream is connected declaring what the
 * client declared in `initialize` (sampling, elicitation and its modes, roots), and the
 * upstream's requests to the client go to that client and their answers back.
 *
 * Each client session gets an upstream connection of its own (a command started for it,
 * or a session of an HTTP upstream), ended when the session ends; or, with
 * `sharedUpstream`, every session uses one.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type Transport,
} from "@modelcontextprotocol/server";
import type { Client, ClientCapabilities } from "@modelcontextprotocol/client";
import { errorMessage, VERSION } from "../core/mod.ts";
import {
  type McpHttpServerOptions,
  type RunningMcpHttpServer,
  startMcpHttpServer,
} from "../mcp/mod.ts";
import { openEventStore, SynthesizedRegistry, ToolCallRecorder } from "../synthesize/mod.ts";
import {
  closeUpstream,
  connectUpstream,
  listAllTools,
  upstreamName,
  upstreamSecrets,
  type UpstreamTarget,
} from "./upstream.ts";
import { isReadOnly, offerComposites } from "./upstream_composites.ts";
import { serveToolCall, upstreamOriginOf } from "./_tool_call.ts";
import type { CallRecorder, ProxyState } from "./_proxy_state.ts";
import {
  answerUpstreamRequests,
  capabilitiesForUpstream,
  forwardRequests,
  type LinkedSession,
  passNotificationsDown,
  passNotificationsUp,
  SHARED_UPSTREAM_CAPABILITIES,
  UpstreamLink,
} from "./_forwarding.ts";
import { DrainingStdioServerTransport } from "./_stdio_transport.ts";
import { declaredCapabilities, declaredInRequest, HeldTransport } from "./_held_transport.ts";
import { type FastCallsOptions, FastCallTransport, UpstreamRelay } from "./_fast_calls.ts";

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
  /**
   * A line for the operator (stderr): never the client's stream. The upstream's own stderr
   * lines come here too, each prefixed with its name (`index.js: …`).
   */
  report: (line: string) => void;
  /** One upstream connection for every client session (for stateless servers). */
  sharedUpstream?: boolean;
  /** `false`: record nothing, open no event store. */
  record?: boolean;
  now?: () => number;
}

/** Most tool calls the client may have in flight at once through the proxy. */
export const MAX_CALLS_IN_FLIGHT = 64;

/** What a new client session declares, as far as the proxy knows it before serving it. */
export interface SessionOptions {
  /** Recorded for calls that carry no MCP session id (default: a fresh id). */
  sessionId?: string;
  /** What the client declared in `initialize` (default: nothing). */
  clientCapabilities?: ClientCapabilities;
}

/**
 * An open proxy: the event store and the recorder, shared by every client session, and
 * a way to serve one more. Disposing it ends what upstream connections are still open
 * (and waits, boundedly, until they have ended), writes the last events and closes the
 * store.
 */
export interface McpProxy extends AsyncDisposable {
  /**
   * An MCP server for one client session, with an upstream connection of its own (the
   * upstream's roots, subscriptions and log level are per session, and its requests and
   * notifications must reach the right client) unless the upstream is shared. Closing
   * the server ends that connection and resolves when it has ended.
   */
  openSession(options?: SessionOptions): Promise<Server>;
  /** Connects to the upstream once and lets go: throws when it cannot be reached. */
  checkUpstream(): Promise<void>;
  /** Upstream connections open or still ending. */
  readonly upstreamConnections: number;
}

const NOT_RECORDING: CallRecorder = { record: () => {}, close: () => Promise.resolve() };

/** Opens the event store and the recorder; sessions are opened later, one per client. */
export async function openMcpProxy(options: McpProxyOptions): Promise<McpProxy> {
  const secrets = [...upstreamSecrets(options.upstream), ...options.secrets];
  const store = options.record === false
    ? undefined
    : await openEventStore(options.stateDir, options.eventStore);
  const recorder: CallRecorder = store
    ? new ToolCallRecorder(store, {
      secrets,
      stateDir: options.stateDir,
      onError: (line) => options.report(`recording: ${line}`),
    })
    : NOT_RECORDING;
  const said = new Set<string>();
  // Each session reads the composites: a reason one is left out is told once, not per session.
  const reportOnce = (line: string) => said.has(line) || (said.add(line), options.report(line));
  // The upstream's own stderr lines are shown as they come, every one.
  const upstreams = new UpstreamPool(options);
  let shared: Promise<UpstreamLink> | undefined;
  const sharedLink = () => {
    const link = shared ??= upstreams.link(SHARED_UPSTREAM_CAPABILITIES, true, () => {
      // Gone: the next session connects again.
      if (shared === link) shared = undefined;
    });
    link.catch(() => shared === link && (shared = undefined));
    return link;
  };
  const context = { ...options, report: reportOnce, recorder };
  let disposed: Promise<void> | undefined;
  return {
    async openSession(session: SessionOptions = {}) {
      if (options.sharedUpstream) {
        return openProxySession(context, await sharedLink(), session, () => Promise.resolve());
      }
      const link = await upstreams.link(
        capabilitiesForUpstream(session.clientCapabilities ?? {}),
        false,
      );
      try {
        return await openProxySession(context, link, session, () => upstreams.release(link));
      } catch (error) {
        await upstreams.release(link);
        throw error;
      }
    },
    async checkUpstream() {
      if (options.sharedUpstream) return void await sharedLink();
      await upstreams.release(await upstreams.link({}, false));
    },
    get upstreamConnections() {
      return upstreams.size;
    },
    [Symbol.asyncDispose]() {
      disposed ??= (async () => {
        await upstreams.closeAll();
        await recorder.close();
        await store?.close();
      })();
      return disposed;
    },
  };
}

/** The upstream connections of a proxy: opened with what to declare, ended and awaited. */
class UpstreamPool {
  readonly #options: McpProxyOptions;
  readonly #open = new Map<UpstreamLink, Client>();
  readonly #ending = new Set<Promise<void>>();

  constructor(options: McpProxyOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#open.size + this.#ending.size;
  }

  /**
   * Connects a new upstream link. When the connection ends on its own (the command exited),
   * its sessions are closed, as a client connected directly would see its server go, and
   * `lost` is called.
   */
  async link(
    capabilities: ClientCapabilities,
    shared: boolean,
    lost: () => void = () => {},
  ): Promise<UpstreamLink> {
    const link = new UpstreamLink(shared);
    const name = upstreamName(this.#options.upstream);
    const client = await connectUpstream(this.#options.upstream, {
      capabilities,
      setup: (client) => answerUpstreamRequests(client, { declared: capabilities, link }),
      stderrLine: (line) => this.#options.report(`${name}: ${line}`),
    });
    link.client = client;
    link.relay = new UpstreamRelay(client);
    passNotificationsDown(link, async () => {
      for (const session of link.sessions) await session.toolsChanged();
    });
    this.#open.set(link, client);
    const closed = client.onclose;
    client.onclose = () => {
      closed?.();
      if (!this.#open.delete(link)) return;
      this.#options.report(`the upstream (${name}) closed the connection`);
      lost();
      // After the answers to the calls it failed (Connection closed) have gone out.
      setTimeout(() => {
        for (const session of [...link.sessions]) void session.server.close().catch(() => {});
      }, 0);
    };
    return link;
  }

  /** Ends the link's upstream connection; resolves when it has ended. */
  release(link: UpstreamLink): Promise<void> {
    const client = this.#open.get(link);
    if (!client) return Promise.resolve();
    this.#open.delete(link);
    const ending = closeUpstream(client).catch(() => {});
    this.#ending.add(ending);
    return ending.finally(() => this.#ending.delete(ending));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((link) => this.release(link)));
    await Promise.all([...this.#ending]);
  }
}

interface SessionContext extends McpProxyOptions {
  recorder: CallRecorder;
}

async function openProxySession(
  context: SessionContext,
  link: UpstreamLink,
  options: SessionOptions,
  release: () => Promise<void>,
): Promise<Server> {
  const upstream = link.client;
  const state: ProxyState = {
    upstream,
    recorder: context.recorder,
    composites: new Map(),
    readOnlyTools: [],
    sessionId: options.sessionId ?? crypto.randomUUID(),
    upstreamOrigin: upstreamOriginOf(context.upstream),
    now: context.now ?? Date.now,
    inFlight: { count: 0 },
  };
  await refreshComposites(state, context);
  const ready = Promise.withResolvers<void>();
  const server = proxyServer(upstream);
  const session: LinkedSession = {
    server,
    capabilities: options.clientCapabilities ?? {},
    inFlight: new Set(),
    ready: ready.promise,
    toolsChanged: async () => {
      try {
        await refreshComposites(state, context);
      } catch (error) {
        context.report(`could not read the upstream's tools again: ${errorMessage(error)}`);
      }
    },
  };
  serveTools(server, session, state);
  server.fastCalls = {
    state,
    session,
    relay: link.relay,
    maxInFlight: MAX_CALLS_IN_FLIGHT,
    // The 2026-era protocol is served per request by the SDK: it keeps its own path.
    // (A 2026-era instance is bound to its revision when connected, before any request.)
    legacy: () => (server.getNegotiatedProtocolVersion() ?? "") < "2026",
  };
  forwardRequests(session, { upstream, capabilities: server.capabilities });
  passNotificationsUp(session, upstream);
  server.oninitialized = () => ready.resolve();
  link.join(session);
  let ended: Promise<void> | undefined;
  server.releaseUpstream = () => {
    ended ??= (async () => {
      link.leave(session);
      ready.resolve();
      await release();
    })();
    return ended;
  };
  server.onclose = () => void server.releaseUpstream();
  return server;
}

/**
 * Serves one client on `transport` (standard input and output by default) until it goes
 * away or `signal` aborts; then writes the last events and ends the upstream (its input
 * closed, a bounded grace to exit) before resolving, so an upstream's last writes are done
 * when this returns. The upstream is started once the client's `initialize` has said what
 * the client can do. On standard input, the requests still in flight when the input ends
 * are answered (and their calls recorded) before the connection closes, as a client that
 * writes its requests and closes its end (a shell pipe) expects. Calls are recorded under
 * `sessionId` (default: one per run).
 */
export async function runMcpProxy(
  options: McpProxyOptions & { transport?: Transport; sessionId?: string; signal?: AbortSignal },
): Promise<void> {
  await using proxy = await openMcpProxy(options);
  const transport = new HeldTransport(options.transport ?? new DrainingStdioServerTransport());
  const stop = () => void transport.close().catch(() => {});
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    const first = await transport.firstMessage();
    if (first === undefined || options.signal?.aborted) return;
    let server: Server;
    try {
      server = await proxy.openSession({
        sessionId: options.sessionId,
        clientCapabilities: declaredCapabilities(first),
      });
    } catch (error) {
      await transport.close().catch(() => {});
      throw error;
    }
    const closed = new Promise<void>((resolve) => {
      const release = server.onclose;
      server.onclose = () => {
        release?.();
        resolve();
      };
    });
    await server.connect(transport);
    await closed;
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }
}

/**
 * Serves the proxy over Streamable HTTP behind the edge (Host, Origin, bearer token), as
 * `syn mcp-serve --http` serves its tools: one MCP server instance per MCP session (per
 * request for the stateless 2026-era protocol), each with its own upstream connection
 * unless the upstream is shared; a call is recorded under its MCP session id.
 */
export async function serveMcpProxyHttp(
  proxy: McpProxy,
  options: McpHttpServerOptions,
): Promise<RunningMcpHttpServer> {
  return await startMcpHttpServer(
    async (context) =>
      await proxy.openSession({
        clientCapabilities: context.era === "legacy"
          ? await declaredInRequest(context.requestInfo)
          : {},
      }),
    options,
  );
}

/** Reads the upstream's tools and the promoted composites again (at start, on list change). */
export async function refreshComposites(
  state: ProxyState,
  options: Pick<McpProxyOptions, "stateDir" | "allowWrites" | "report">,
): Promise<void> {
  const tools = await listAllTools(state.upstream);
  // Worked out here, once per listing, not per recorded call.
  state.readOnlyTools = tools.filter(isReadOnly).map((tool) => tool.name);
  const promoted = await new SynthesizedRegistry(options.stateDir).promoted();
  const offer = offerComposites(promoted, tools, options);
  state.composites = new Map(offer.offered.map((item) => [item.tool.name, item]));
  for (const skipped of offer.skipped) {
    options.report(`composite.${skipped.tool_id} not offered: ${skipped.reason}`);
  }
}

/**
 * A session's server: lets go of its upstream connection when closed — also when it was
 * never connected, where the SDK's `close` does not call `onclose` — and resolves once
 * that connection has ended.
 */
class SessionServer extends Server {
  readonly capabilities: ServerCapabilities;
  releaseUpstream: () => Promise<void> = () => Promise.resolve();
  /** Forwarded tool calls skip the SDK's request machinery (see `_fast_calls.ts`). */
  fastCalls?: FastCallsOptions;

  constructor(upstream: Client, capabilities: ServerCapabilities) {
    super(upstream.getServerVersion() ?? { name: "syn-mcp-proxy", version: VERSION }, {
      capabilities,
      instructions: upstream.getInstructions(),
    });
    this.capabilities = capabilities;
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(
      this.fastCalls ? new FastCallTransport(transport, this.fastCalls) : transport,
    );
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      await this.releaseUpstream();
    }
  }
}

function proxyServer(upstream: Client): SessionServer {
  // Tasks are not carried through: advertising them would promise `tasks/*` methods.
  const { tasks: _tasks, ...capabilities } = (upstream.getServerCapabilities() ?? {}) as
    & ServerCapabilities
    & { tasks?: unknown };
  return new SessionServer(upstream, capabilities);
}

function serveTools(server: SessionServer, session: LinkedSession, state: ProxyState): void {
  if (!server.capabilities.tools) return;
  server.setRequestHandler("tools/list", async (request, ctx) => {
    const result = await state.upstream.listTools(request.params, { signal: ctx.mcpReq.signal });
    if (result.nextCursor) return result;
    return {
      ...result,
      tools: [...result.tools, ...[...state.composites.values()].map((item) => item.tool)],
    };
  });
  server.setRequestHandler("tools/call", async (request, ctx) => {
    if (state.inFlight.count >= MAX_CALLS_IN_FLIGHT) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `more than ${MAX_CALLS_IN_FLIGHT} tool calls in flight: try again when some finish`,
      );
    }
    session.inFlight.add(ctx.mcpReq.id);
    try {
      return await serveToolCall(state, request.params, ctx);
    } finally {
      session.inFlight.delete(ctx.mcpReq.id);
    }
  });
}
