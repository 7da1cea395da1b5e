/**
 * Records the proxy's calls as tool events, off the call path: a call's answer never waits
 * for the store, and a store that fails (a full disk, a dropped database) never fails a
 * call. Each kind of failure is reported once, not once per call.
 */
import { errorMessage, redactText, redactValue } from "../core/mod.ts";
import type { EventStore, ToolEvent, ToolOutcome } from "../synthesize/mod.ts";
import { capSummary } from "./call_result.ts";

/** Most events waiting for the store; more are dropped (and that is reported once). */
export const MAX_PENDING_EVENTS = 1000;

/** One finished call as the proxy saw it. */
export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
  summary: string | null;
  outcome: ToolOutcome;
  latencyMs: number;
  /** When the call started, unix ms. */
  startedMs: number;
  sessionId: string;
}

export interface EventRecorderOptions {
  /** Secret values to mask in arguments and summaries (header values, API keys). */
  secrets: readonly string[];
  /** Where a failure is reported (once per kind). */
  report: (line: string) => void;
}

export class EventRecorder {
  #store: EventStore;
  #options: EventRecorderOptions;
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  #reported = new Set<string>();

  constructor(store: EventStore, options: EventRecorderOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** The event of a call: arguments and summary redacted, summary capped. */
  eventOf(call: RecordedCall): ToolEvent {
    const secrets = this.#options.secrets;
    return {
      event_id: crypto.randomUUID(),
      session_id: call.sessionId,
      tool_id: call.tool,
      input_params: redactValue(call.args, secrets),
      output_summary: call.summary === null ? null : capSummary(redactText(call.summary, secrets)),
      outcome: call.outcome,
      latency_ms: Math.max(0, Math.round(call.latencyMs)),
      ts: new Date(call.startedMs).toISOString(),
      ts_ms: call.startedMs,
    };
  }

  /** Queues the call's event; returns at once. */
  record(call: RecordedCall): void {
    if (this.#pending >= MAX_PENDING_EVENTS) {
      this.#reportOnce("backlog", `more than ${MAX_PENDING_EVENTS} events wait: dropping some`);
      return;
    }
    let event: ToolEvent;
    try {
      event = this.eventOf(call);
    } catch (error) {
      this.#reportOnce("event", errorMessage(error));
      return;
    }
    this.#pending++;
    this.#queue = this.#queue.then(() => this.#store.append([event])).then(
      () => {},
      (error) => this.#reportOnce(kindOf(error), errorMessage(error)),
    ).finally(() => this.#pending--);
  }

  /** Resolves when every queued event has been written (or has failed). */
  async flush(): Promise<void> {
    await this.#queue;
  }

  #reportOnce(kind: string, message: string): void {
    if (this.#reported.has(kind)) return;
    this.#reported.add(kind);
    this.#options.report(
      `could not record a call (${kind}): ${
        redactText(message, this.#options.secrets)
      }; calls still go through, further ${kind} failures are not reported`,
    );
  }
}

/** A short name for a kind of store failure: the error's code or class. */
function kindOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^[\w-]{1,40}$/.test(code)) return code;
  return error instanceof Error ? error.name : "error";
}
