/**
 * What `syn mcp-serve --tools` serves: a tool session per MCP server instance (the
 * sandbox flags of `syn tools run`, the baseline tools and the state folder's promoted
 * composites), and every call recorded in the state folder's event store.
 */
import { neutralizeTerminalText } from "../core/mod.ts";
import type { ToolsServeOptions } from "../mcp/mod.ts";
import { openToolCallRecording, toolRegistryWithComposites } from "../synthesize/mod.ts";
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
  const recording = await openToolCallRecording(stateDir, {
    eventStore: io.config.eventStore,
    secrets: base.secrets,
    onError: (line) => log(`mcp:warn recording ${line}`),
  });
  // Each composite left out is said once, not at every session.
  const leftOut = new Set<string>();
  const onLeftOut = (toolId: string, problems: string[]) => {
    if (leftOut.has(toolId)) return;
    leftOut.add(toolId);
    log(neutralizeTerminalText(`mcp:warn composite ${toolId} left out: ${problems.join("; ")}`));
  };
  return {
    options: {
      openSession: async () =>
        openToolSession({
          ...base,
          registry: await toolRegistryWithComposites(stateDir, { onLeftOut }),
        }),
      onCall: (call) => recording.record(call),
      log,
    },
    recordingTo: recording.location,
    [Symbol.asyncDispose]: () => recording[Symbol.asyncDispose](),
  };
}
