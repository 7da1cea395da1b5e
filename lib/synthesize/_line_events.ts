/** The input formats ingest reads; `auto` decides per line. */
export const INGEST_FORMATS = ["auto", "events", "trace", "taubench", "bfcl"] as const;
import { isRecord } from "../core/mod.ts";
export type IngestFormat = typeof INGEST_FORMATS[number];

/**
 * What one JSONL line holds: candidate events (still to be checked against the schema,
 * each with a label for error messages), nothing of interest (`skip`), or a reason it is
 * not what the format expects.
 */
export type LineContent =
  | { kind: "events"; candidates: { label: string; value: unknown }[] }
  | { kind: "skip" }
  | { kind: "bad"; reason: string };

/** A corpus session longer than this is refused (its synthetic clock would overlap). */
const MAX_CALLS_PER_SESSION = 1000;

function isCorpusSession(value: unknown): value is Record<string, unknown> & { calls: unknown[] } {
  return isRecord(value) && typeof value.session_id === "string" && Array.isArray(value.calls);
}

function isTraceLine(value: unknown): value is { kind: string; data: Record<string, unknown> } {
  return isRecord(value) && typeof value.kind === "string" && isRecord(value.data);
}

/**
 * The format a parsed line looks like, whatever `--format` says: a corpus session
 * (`bfcl` when its `source` or `domain` names BFCL, else `taubench`), a trace line, one of
 * our events (it has `tool_id` and `session_id`), or none of them.
 */
export function lineShape(value: unknown): Exclude<IngestFormat, "auto"> | undefined {
  if (isCorpusSession(value)) {
    const origin = `${value.source ?? ""} ${value.domain ?? ""}`;
    return /\bbfcl/i.test(origin) ? "bfcl" : "taubench";
  }
  if (isTraceLine(value)) return "trace";
  if (
    isRecord(value) && typeof value.tool_id === "string" && typeof value.session_id === "string"
  ) {
    return "events";
  }
  return undefined;
}

/** The events one parsed line holds, read as `format` (line numbers count from 1). */
export function lineContent(value: unknown, format: IngestFormat, line: number): LineContent {
  if (isRecord(value) && Object.hasOwn(value, "syn_encrypted")) {
    return { kind: "bad", reason: "encrypted at rest (syn_encrypted): decrypt it first" };
  }
  const shape = format === "auto"
    ? (isCorpusSession(value) ? "corpus" : isTraceLine(value) ? "trace" : "events")
    : format === "taubench" || format === "bfcl"
    ? "corpus"
    : format;
  if (shape === "events") return { kind: "events", candidates: [{ label: "", value }] };
  if (shape === "trace") return traceContent(value);
  return corpusContent(value, line);
}

/**
 * A `syn chat` / `syn tools --trace` line (`{ts, kind, data}`): a `tool_done` carries the
 * whole event (its `ts` as RFC 3339 in `data`, the line's unix seconds as a fallback);
 * `tool_start` and the chat's other kinds hold none.
 */
function traceContent(value: unknown): LineContent {
  if (!isTraceLine(value)) {
    return { kind: "bad", reason: "not a trace line: expected {ts, kind, data}" };
  }
  if (value.kind !== "tool_done") return { kind: "skip" };
  const data = value.data;
  const ts = data.ts ?? (value as { ts?: unknown }).ts;
  return { kind: "events", candidates: [{ label: "tool_done", value: { ...data, ts } }] };
}

/**
 * A session of the public corpora (`agent-traces/*\/sessions.jsonl`:
 * `{session_id, calls: [{name, args, output?}]}`), one event per call. They record no
 * ids, times, latencies or outcomes, so: `event_id` is `<session_id>:<index>`, `ts` is a
 * synthetic clock in unix seconds (line × 1000 + index: file order, sessions in line
 * order), latency 0, and the outcome FAILURE when the output starts with "Error"
 * (tau-bench's tools answer errors that way), else SUCCESS.
 */
function corpusContent(value: unknown, line: number): LineContent {
  if (!isCorpusSession(value)) {
    return { kind: "bad", reason: "not a session line: expected {session_id, calls: [...]}" };
  }
  if (value.calls.length > MAX_CALLS_PER_SESSION) {
    return { kind: "bad", reason: `more than ${MAX_CALLS_PER_SESSION} calls in one session` };
  }
  const candidates = value.calls.map((call, index) => {
    const label = `call ${index}`;
    if (!isRecord(call)) return { label, value: call };
    const output = call.output === undefined || call.output === null
      ? null
      : typeof call.output === "string"
      ? call.output
      : JSON.stringify(call.output);
    return {
      label,
      value: {
        event_id: `${value.session_id}:${index}`,
        session_id: value.session_id,
        tool_id: call.name,
        input_params: call.args ?? {},
        output_summary: output,
        outcome: output !== null && /^\s*error\b/i.test(output) ? "FAILURE" : "SUCCESS",
        latency_ms: 0,
        ts: line * 1000 + index,
      },
    };
  });
  return { kind: "events", candidates };
}
