/**
 * @module
 * The tools an agent may call — `fs.read_text`, `fs.list_dir`, `fs.write_text`,
 * `shell.exec`, `http.get`, and composite tools registered later — each call checked
 * (arguments against their JSON Schema, capabilities, real paths, argv, hosts) and run in
 * a sandbox whose Deno permissions hold only what the session was granted. Every call
 * resolves to a tool result `{id, tool, ok, output, error}` and emits `tool_start` /
 * `tool_done` trace events.
 *
 * ```ts
 * import { ToolSession } from "./mod.ts";
 * const root = await Deno.makeTempDir();
 * using session = await ToolSession.open({ root });
 * await session.call({ id: "t1", tool: "fs.write_text", args: { path: "a.txt", text: "hi" } });
 * const result = await session.call({ id: "t2", tool: "fs.read_text", args: { path: "a.txt" } });
 * // { id: "t2", tool: "fs.read_text", ok: true,
 * //   output: { path: "a.txt", text: "hi", bytes: 2, truncated: false }, error: null }
 * ```
 */
export type {
  ToolCall,
  ToolError,
  ToolErrorCode,
  ToolOutcome,
  ToolResult,
  ToolTraceEvent,
  ToolTraceSink,
} from "./types.ts";
export {
  type ToolContext,
  type ToolDescriptor,
  type ToolEffects,
  type ToolPolicy,
  UNKNOWN_EFFECTS,
} from "./tool_descriptor.ts";
export { ToolRegistry } from "./tool_registry.ts";
export { BASELINE_TOOLS, baselineRegistry } from "./baseline_tools.ts";
export {
  type CompositeDefinition,
  type CompositeErrorStrategy,
  type CompositeStep,
  type CompositeWire,
  MAX_PARALLEL_STEPS,
  planLatency,
  type RetryRule,
  type StepInput,
  strategyHandles,
  type WaveOptions,
} from "./composite_plan.ts";
export {
  compositeArgumentProblems,
  type CompositeCallResult,
  compositeCallResult,
  compositeDescription,
  type CompositeOutcome,
  compositeProblems,
  type CompositeRunOptions,
  compositeToolDescriptor,
  runComposite,
  type StepExecutor,
  type StepReport,
  wiredValue,
} from "./composite_tool.ts";
export {
  MAX_CONDITION_CHARS,
  MAX_CONDITION_DEPTH,
  parseCondition,
} from "./condition_expression.ts";
export { capSummary, OUTPUT_SUMMARY_CHARS, outputSummary } from "./output_summary.ts";
export { toolOutcome, ToolSession, type ToolSessionOptions } from "./tool_session.ts";
export {
  applyCapabilityAction,
  type CapabilityActionResult,
  type CapabilityState,
  grantCapability,
  isCapability,
  revokeCapability,
} from "./capabilities.ts";
export { Sandbox, type SandboxPermissions } from "./sandbox.ts";
export type { CachedResponse, HttpCache } from "./http_cache_port.ts";
export { DEFAULT_SHELL_ALLOW, detectBubblewrap } from "./shell_exec.ts";
export { openHttpCache } from "./open_http_cache.ts";
