/**
 * What every server that answers syn's own tools (`syn mcp-serve --tools`) records into:
 * the state folder's event store with a `ToolCallRecorder` over it, and the tool registry
 * those servers offer — the baseline tools and the state folder's promoted composites.
 * `syn chat` offers the same registry.
 */
import { baselineRegistry, toolOutcome, type ToolRegistry, type ToolResult } from "../tools/mod.ts";
import type { EventStore } from "./event_store.ts";
import { openEventStore } from "./open_event_store.ts";
import { registerPromotedComposites } from "./promoted_composites.ts";
import { type RecordedCall, ToolCallRecorder } from "./tool_call_recorder.ts";

/** One call a tool session answered, as a server saw it. */
export interface AnsweredCall {
  tool: string;
  args: Record<string, unknown>;
  result: ToolResult;
  /** When the call started, unix ms. */
  startedMs: number;
  latencyMs: number;
  sessionId?: string;
}

/** The event a recorder keeps of an answered call: its output or its error, and the outcome. */
export function recordedCallOf(call: AnsweredCall): RecordedCall {
  return {
    tool: call.tool,
    args: call.args,
    output: { structured: call.result.ok ? call.result.output : call.result.error },
    outcome: toolOutcome(call.result),
    startedMs: call.startedMs,
    latencyMs: call.latencyMs,
    sessionId: call.sessionId,
  };
}

/** A state folder's event store and its recorder; disposing flushes, then closes the store. */
export interface ToolCallRecording extends AsyncDisposable {
  /** The store's location, safe to print. */
  readonly location: string;
  /** Queues one answered call's event: never waits, never throws. */
  record(call: AnsweredCall): void;
}

/** Options of {@linkcode openToolCallRecording}. */
export interface ToolCallRecordingOptions {
  /** The configured event store (`SYN_EVENT_STORE`): sqlite in the state folder, or a Postgres URL. */
  eventStore?: string;
  /** Values masked in what is recorded. */
  secrets?: readonly string[];
  /** Told once per kind of recording failure. */
  onError?: (line: string) => void;
}

/** Opens the state folder's event store and a recorder over it. */
export async function openToolCallRecording(
  stateDir: string,
  options: ToolCallRecordingOptions = {},
): Promise<ToolCallRecording> {
  const store: EventStore = await openEventStore(stateDir, options.eventStore);
  const recorder = new ToolCallRecorder(store, {
    secrets: options.secrets,
    onError: options.onError,
  });
  return {
    location: store.location,
    record: (call) => recorder.record(recordedCallOf(call)),
    async [Symbol.asyncDispose]() {
      await recorder.close();
      await store.close();
    },
  };
}

/**
 * The tools a session offers: the baseline tools and, with a state folder, its promoted
 * composites whose steps are among them. Reading the registry writes nothing; each
 * composite left out is told to `onLeftOut` with up to three reasons.
 */
export async function toolRegistryWithComposites(
  stateDir: string | undefined,
  options: { onLeftOut?: (toolId: string, problems: string[]) => unknown } = {},
): Promise<ToolRegistry> {
  const registry = await baselineRegistry();
  if (!stateDir) return registry;
  const report = await registerPromotedComposites(registry, stateDir);
  for (const { tool_id, problems } of report.skipped) {
    await options.onLeftOut?.(tool_id, problems.slice(0, 3));
  }
  return registry;
}
