/**
 * What `syn mcp-serve --tools` serves: a tool session per MCP server instance (the
 * sandbox flags of `syn tools run`, the baseline tools and the state folder's promoted
 * composites), and every call recorded in the state folder's event store.
 */
import { neutralizeTerminalText } from "../core/mod.ts";
import type { AnsweredToolCall, ToolsServeOptions } from "../mcp/mod.ts";
import {
  type EventStore,
  openEventStore,
  registerPromotedComposites,
  ToolCallRecorder,
} from "../synthesize/mod.ts";
import { baselineRegistry, toolOutcome, type ToolRegistry } from "../tools/mod.ts";
import type { CliIo } from "./io.ts";
import { openToolSession, toolSessionOptions } from "./_tool_session_options.ts";
import type { SandboxFlagValues } from "./_sandbox_flags.ts";

/** The tool server's wiring, and how to end it (flush the recorder, close the store). */
export interface ToolsServing extends AsyncDisposable {
  options: ToolsServeOptions;
  /** The event store's location, safe to print. */
  recordingTo: string;
}

/**
 * Checks the flags and the root (bad usage before anything is served), opens the event
 * store and the recorder. Sessions are opened later, one per MCP server instance.
 */
export async function openToolsServing(
  values: SandboxFlagValues & { "net-allow-host"?: string[] },
  io: CliIo,
  log: (line: string) => void,
): Promise<ToolsServing> {
  const base = toolSessionOptions({ ...values, allowHosts: values["net-allow-host"] }, io);
  (await openToolSession(base)).close();
  const stateDir = base.stateDir!;
  const store: EventStore = await openEventStore(stateDir, io.config.eventStore);
  const recorder = new ToolCallRecorder(store, {
    secrets: base.secrets,
    onError: (line) => log(`mcp:warn recording ${line}`),
  });
  const leftOut = new Set<string>();
  const registry = async (): Promise<ToolRegistry> => {
    const tools = await baselineRegistry();
    const report = await registerPromotedComposites(tools, stateDir);
    for (const { tool_id, problems } of report.skipped) {
      if (leftOut.has(tool_id)) continue;
      leftOut.add(tool_id);
      const why = problems.slice(0, 3).join("; ");
      log(neutralizeTerminalText(`mcp:warn composite ${tool_id} left out: ${why}`));
    }
    return tools;
  };
  const onCall = (call: AnsweredToolCall) =>
    recorder.record({
      tool: call.tool,
      args: call.args,
      output: { structured: call.result.ok ? call.result.output : call.result.error },
      outcome: toolOutcome(call.result),
      startedMs: call.startedMs,
      latencyMs: call.latencyMs,
      sessionId: call.sessionId,
    });
  return {
    options: {
      openSession: async () => openToolSession({ ...base, registry: await registry() }),
      onCall,
      log,
    },
    recordingTo: store.location,
    async [Symbol.asyncDispose]() {
      await recorder.close();
      await store.close();
    },
  };
}
