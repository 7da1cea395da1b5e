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
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { errorMessage, secretsFromEnv, VERSION } from "../core/mod.ts";
import { openEventStore, SynthesizedRegistry, ToolCallRecorder } from "../synthesize/mod.ts";
import { connectUpstream, listAllTools, upstreamSecrets, type UpstreamTarget } from "./upstream.ts";
import { offerComposites } from "./upstream_composites.ts";
import { serveToolCall } from "./_tool_call.ts";
import type { ProxyState } from "./_proxy_state.ts";
import { forwardNotifications, forwardRequests } from "./_forwarding.ts";

export interface McpProxyOptions {
  upstream: UpstreamTarget;
  /** The state folder: the event store (unless SYN_EVENT_STORE names one) and the registry. */
  stateDir: string;
  /** Offer composites with a step the upstream does not mark read-only. */
  allowWrites: boolean;
  env: (name: string) => string | undefined;
  /** A line for the operator (stderr): never the client's stream. */
  report: (line: string) => void;
  /** The client side; standard input and output by default. */
  transport?: Transport;
  /** The recorded session id when the transport has none (default: one per proxy run). */
  sessionId?: string;
  now?: () => number;
}

/** Most tool calls the client may have in flight at once through the proxy. */
export const MAX_CALLS_IN_FLIGHT = 64;

/** Serves until the client goes away; then writes the last events and closes the upstream. */
export async function runMcpProxy(options: McpProxyOptions): Promise<void> {
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
  try {
    await using store = await openEventStore(options.stateDir, options.env);
    const secrets = [...upstreamSecrets(options.upstream), ...secretsFromEnv(options.env)];
    const recorder = new ToolCallRecorder(store, {
      secrets,
      onError: (line) => options.report(`recording: ${line}`),
    });
    const state: ProxyState = {
      upstream,
      recorder,
      composites: new Map(),
      upstreamTools: [],
      sessionId: options.sessionId ?? crypto.randomUUID(),
      now: options.now ?? Date.now,
      inFlight: { count: 0 },
    };
    await refreshComposites(state, options);
    server = proxyServer(state, options);
    const closed = new Promise<void>((resolve) => server!.onclose = resolve);
    await server.connect(options.transport ?? new StdioServerTransport());
    await closed;
    await recorder.close();
  } finally {
    await upstream.close().catch(() => {});
  }
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

function proxyServer(state: ProxyState, options: McpProxyOptions): Server {
  const upstream = state.upstream;
  const capabilities = upstream.getServerCapabilities() ?? {};
  const info = upstream.getServerVersion() ?? { name: "syn-mcp-proxy", version: VERSION };
  const server = new Server(info, { capabilities, instructions: upstream.getInstructions() });
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
