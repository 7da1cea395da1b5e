/**
 * Records tool calls as tool events in an event store, as they happen, for any server
 * that answers tool calls (`syn mcp-serve --tools`, `syn mcp-proxy`): one event per call
 * with the tool, its arguments with secrets masked (the values given, and the value of every
 * field at any depth whose name is on `lib/core`'s one list of secret names: token, password,
 * secret, key, cookie, …) and capped, a summary of its output (masked the same way), the
 * outcome, the latency and the session. Where a call names how its session's upstream was
 * started, that origin is written once per session (`session_origins.ts`).
 *
 * Off the call path: `record` never waits and never throws, so a call's answer never
 * waits for the store, and a store that fails (a full disk, a database gone) never fails
 * a call. Appends are batched; at most {@linkcode MAX_PENDING_EVENTS} events wait, more
 * are dropped. Each kind of failure is reported once through `onError`, not once per call.
 */
import { errorMessage, isRecord, maskSecretFields, redactText, redactValue } from "../core/mod.ts";
import { capSummary, OUTPUT_SUMMARY_CHARS } from "../tools/mod.ts";
import type { EventStore } from "./event_store.ts";
import {
  appendSessionOrigin,
  maskedOrigin,
  type SessionOrigin,
  type UpstreamOrigin,
} from "./session_origins.ts";
import { toEventRecord, type ToolEvent, toolEventParser, type ToolOutcome } from "./tool_event.ts";

/** A batch is appended once it holds this many events… */
export const RECORDER_BATCH_SIZE = 64;
/** …or this long after its first event (ms). */
export const RECORDER_FLUSH_MS = 50;
/** Most events waiting for the store (queued or being written); more are dropped. */
export const MAX_PENDING_EVENTS = 1000;
/** A recorded string argument is cut to this many characters, like an output summary. */
export const MAX_INPUT_STRING_CHARS = OUTPUT_SUMMARY_CHARS;
/** Recorded arguments larger than this (as JSON) are replaced by a note of their size. */
export const MAX_INPUT_JSON_CHARS = 64 * 1024;

/** One finished call, as the server saw it. */
export interface RecordedCall {
  /** The tool's name as called (`fs.read_text`, `composite.x`, an upstream server's name). */
  tool: string;
  /** The arguments as given; secrets are masked before anything is stored. */
  args: Record<string, unknown>;
  /**
   * What the tool answered: `structured` (stored as its JSON) wins over `text`; both are
   * cut at `OUTPUT_SUMMARY_CHARS` (lib/tools/output_summary.ts). Neither: no summary.
   */
  output?: { structured?: unknown; text?: string };
  outcome: ToolOutcome;
  /** When the call started, unix ms. */
  startedMs: number;
  latencyMs: number;
  /** The session it belongs to; else the recorder's `sessionId()`. */
  sessionId?: string;
  /**
   * How the session's upstream was started and which of its tools it annotates read-only;
   * written once per session when the recorder has a `stateDir`.
   */
  origin?: { upstream: UpstreamOrigin; readOnlyTools: readonly string[] };
}

/** Options of {@linkcode ToolCallRecorder}. */
export interface ToolCallRecorderOptions {
  /** Values masked in arguments and summaries (the configuration's secrets, upstream header values). */
  secrets?: readonly string[];
  /** The session of a call that names none (default: one id for the recorder's life). */
  sessionId?: () => string;
  /** Told once per kind of failure (`store_error: …`); the default says nothing. */
  onError?: (line: string) => void;
  /** How long a batch waits for more events before it is appended (ms). */
  flushMs?: number;
  /** Where session origins are written (`<state>/session-origins.jsonl`); none: not written. */
  stateDir?: string;
}

/**
 * Turns calls into tool events and appends them in batches. `record` never throws and
 * never waits; `flush` appends what is queued; `close` flushes and stops (the store stays
 * open: it belongs to the caller).
 *
 * ```ts
 * const recorder = new ToolCallRecorder(store, { secrets, onError: (line) => log(line) });
 * recorder.record({ tool: "fs.read_text", args: { path: "a.txt" }, outcome: "SUCCESS",
 *   output: { structured: { text: "hi" } }, startedMs: Date.now(), latencyMs: 3,
 *   sessionId: "s1" });
 * await recorder.close();
 * ```
 */
export class ToolCallRecorder implements AsyncDisposable {
  readonly #store: EventStore;
  readonly #options: ToolCallRecorderOptions;
  readonly #sessionId: () => string;
  readonly #reported = new Set<string>();
  #queue: ToolEvent[] = [];
  /** Events queued or in a batch being written. */
  #pending = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Sessions whose origin was written (or is being written). */
  readonly #described = new Set<string>();

  constructor(store: EventStore, options: ToolCallRecorderOptions = {}) {
    this.#store = store;
    this.#options = options;
    const fallback = crypto.randomUUID();
    this.#sessionId = options.sessionId ?? (() => fallback);
  }

  /** Queues one call's event. Never throws; after `close` it is ignored. */
  record(call: RecordedCall): void {
    if (this.#closed) return;
    if (this.#pending >= MAX_PENDING_EVENTS) {
      this.#report("backlog", `more than ${MAX_PENDING_EVENTS} events wait for the store: dropped`);
      return;
    }
    try {
      const event = this.#event(call);
      this.#queue.push(event);
      this.#pending++;
      this.#describe(event.session_id, call.origin);
    } catch (error) {
      this.#report("record_error", errorMessage(error));
      return;
    }
    if (this.#queue.length >= RECORDER_BATCH_SIZE) {
      void this.flush();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.#options.flushMs ?? RECORDER_FLUSH_MS);
    }
  }

  /** Appends the queued events; resolves when they (and earlier batches) are written. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length > 0) {
      this.#writing = this.#writing.then(() => this.#append(batch)).finally(() => {
        this.#pending -= batch.length;
      });
    }
    return this.#writing;
  }

  /** Flushes and stops recording. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #append(batch: ToolEvent[]): Promise<void> {
    try {
      // Only what the event schema accepts is stored: a tool name or session id from an
      // untrusted client may not be an identifier.
      const parse = await toolEventParser();
      const valid = batch.filter((event) => {
        const verdict = parse(toEventRecord(event));
        if (!verdict.ok) {
          this.#report("invalid_event", `a call was not recorded: ${verdict.reason}`);
        }
        return verdict.ok;
      });
      if (valid.length > 0) await this.#store.append(valid);
    } catch (error) {
      const kind = failureKind(error);
      this.#report(
        `store_error${kind ? ` ${kind}` : ""}`,
        `${batch.length} tool events not recorded: ${errorMessage(error)}`,
      );
    }
  }

  #event(call: RecordedCall): ToolEvent {
    const secrets = this.#options.secrets ?? [];
    const startedMs = Number.isFinite(call.startedMs) ? call.startedMs : Date.now();
    return {
      event_id: crypto.randomUUID(),
      session_id: call.sessionId || this.#sessionId(),
      tool_id: call.tool,
      input_params: recordedInputs(call.args, secrets),
      output_summary: summary(call.output, secrets),
      outcome: call.outcome,
      latency_ms: Math.max(0, Math.round(call.latencyMs)),
      ts: new Date(startedMs).toISOString(),
      ts_ms: startedMs,
    };
  }

  /** Writes a session's origin once, off the call path, in order with the events. */
  #describe(sessionId: string, origin: RecordedCall["origin"]): void {
    const stateDir = this.#options.stateDir;
    if (!origin || !stateDir || this.#described.has(sessionId)) return;
    this.#described.add(sessionId);
    const record: SessionOrigin = maskedOrigin({
      session_id: sessionId,
      upstream: origin.upstream,
      read_only_tools: [...origin.readOnlyTools].sort(),
      recorded_at: new Date().toISOString(),
    }, this.#options.secrets ?? []);
    this.#writing = this.#writing.then(() => appendSessionOrigin(stateDir, record)).catch(
      (error) =>
        this.#report("origin_error", `session origin not recorded: ${errorMessage(error)}`),
    );
  }

  /** Once per kind: a full disk would otherwise print a line per call. Secrets masked. */
  #report(kind: string, detail: string): void {
    if (this.#reported.has(kind)) return;
    this.#reported.add(kind);
    const masked = redactText(detail, this.#options.secrets ?? []);
    try {
      this.#options.onError?.(`${kind}: ${masked} (further ones are not reported)`);
    } catch {
      // a broken logger must not fail the call either
    }
  }
}

/** A store error's code (`ENOSPC`, `SQLITE_FULL`), when it has a short one. */
function failureKind(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[\w-]{1,40}$/.test(code) ? code : undefined;
}

/**
 * The arguments as stored: known secrets masked, every secret-named field masked at any
 * depth, each string cut to `MAX_INPUT_STRING_CHARS` (after masking, so no secret leaves a
 * readable prefix), and the whole replaced by a note of its size past `MAX_INPUT_JSON_CHARS`.
 */
export function recordedInputs(
  args: Record<string, unknown>,
  secrets: readonly string[],
): Record<string, unknown> {
  const masked = maskSecretFields(redactValue(args, secrets));
  const capped = capStrings(masked) as Record<string, unknown>;
  const size = JSON.stringify(capped)?.length ?? 0;
  if (size <= MAX_INPUT_JSON_CHARS) return isRecord(capped) ? capped : {};
  return { "(not recorded)": `${size} characters of arguments, over ${MAX_INPUT_JSON_CHARS}` };
}

/** A copy with every string cut as an output summary is (iterative: any depth). */
function capStrings(value: unknown): unknown {
  const copyOf = (item: unknown): unknown =>
    typeof item === "string"
      ? capSummary(item)
      : Array.isArray(item)
      ? new Array(item.length)
      : item !== null && typeof item === "object"
      ? {}
      : item;
  const root = copyOf(value);
  const pending: [object, Record<string, unknown>][] = [];
  if (root !== null && typeof root === "object") pending.push([value as object, root as never]);
  while (pending.length) {
    const [source, target] = pending.pop()!;
    for (const [key, entry] of Object.entries(source)) {
      const copy = copyOf(entry);
      Object.defineProperty(target, key, {
        value: copy,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (copy !== null && typeof copy === "object") pending.push([entry as object, copy as never]);
    }
  }
  return root;
}

/** Masked before it is cut, so a secret at the cut cannot leave a readable prefix. */
function summary(output: RecordedCall["output"], secrets: readonly string[]): string | null {
  let text: string | undefined;
  if (output?.structured !== undefined) text = JSON.stringify(maskSecretFields(output.structured));
  else if (output?.text !== undefined) text = output.text;
  if (text === undefined) return null;
  return capSummary(redactText(text, secrets));
}
