/**
 * @module
 * The recording MCP proxy: a transparent MCP server in front of any MCP server (a command
 * on stdio, or Streamable HTTP). Every `tools/call` becomes a tool event in the state
 * folder's event store, where `syn synthesize` mines it; the promoted composites over the
 * upstream's tools are served back as `composite.<tool_id>`, each step a call to the
 * upstream; and a composite over read-only tools can be validated by executing it against
 * the live upstream.
 *
 * ```ts
 * import { runMcpProxy } from "./mod.ts";
 * await runMcpProxy({
 *   upstream: { kind: "stdio", command: "node", args: ["server.js", "/data"] },
 *   stateDir: ".syn",
 *   allowWrites: false,
 *   secrets: [],
 *   report: (line) => console.error(line),
 * });
 * ```
 */
export {
  MAX_CALLS_IN_FLIGHT,
  type McpProxy,
  type McpProxyOptions,
  openMcpProxy,
  refreshComposites,
  runMcpProxy,
  serveMcpProxyHttp,
  type SessionOptions,
} from "./mcp_proxy.ts";
export {
  closeUpstream,
  connectUpstream,
  describeRefusal,
  describeUpstream,
  listAllTools,
  upstreamName,
  upstreamSecrets,
  type UpstreamSpec,
  type UpstreamTarget,
  upstreamTargetOf,
} from "./upstream.ts";
export { freshTarget, type FreshUpstreamOptions, freshUpstreamWorlds } from "./fresh_upstream.ts";
export {
  callComposite,
  compositeAnnotations,
  type CompositeOffer,
  compositeToolResult,
  isReadOnly,
  offerComposites,
  type OfferedComposite,
  upstreamStepExecutor,
} from "./upstream_composites.ts";
export { recordedOutput, stepOutput, summarizeOutput } from "./call_result.ts";
export { openUpstreamValidation, type UpstreamValidation } from "./upstream_validation.ts";
