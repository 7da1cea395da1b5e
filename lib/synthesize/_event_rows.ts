import type { SessionEvents, SessionRange, SessionSummary } from "./event_store.ts";
import type { StoredToolEvent, ToolEvent, ToolOutcome } from "./tool_event.ts";

/**
 * The column form of an event shared by the SQL stores. `input_params`, `output_summary`
 * and `ts` are stored as JSON text: that keeps `ts` exactly as given (string or number)
 * and puts any character (NUL included, which Postgres text refuses) into escaped ASCII.
 */
export interface EventRow {
  seq: number | bigint | string;
  event_id: string;
  session_id: string;
  tool_id: string;
  input_params: string;
  output_summary: string | null;
  outcome: string;
  latency_ms: number | bigint | string;
  ts: string;
  ts_ms: number | string;
}

export const EVENT_COLUMNS =
  "seq, event_id, session_id, tool_id, input_params, output_summary, outcome, latency_ms, ts, ts_ms";

/** The values of an event in insert order (`event_id` … `ts_ms`, no `seq`). */
export function eventValues(event: ToolEvent): [
  string,
  string,
  string,
  string,
  string | null,
  string,
  number,
  string,
  number,
] {
  return [
    event.event_id,
    event.session_id,
    event.tool_id,
    JSON.stringify(event.input_params),
    event.output_summary === null ? null : JSON.stringify(event.output_summary),
    event.outcome,
    event.latency_ms,
    JSON.stringify(event.ts),
    event.ts_ms,
  ];
}

export function eventFromRow(row: EventRow): StoredToolEvent {
  return {
    event_id: row.event_id,
    session_id: row.session_id,
    tool_id: row.tool_id,
    input_params: JSON.parse(row.input_params),
    output_summary: row.output_summary === null ? null : JSON.parse(row.output_summary),
    outcome: row.outcome as ToolOutcome,
    latency_ms: Number(row.latency_ms),
    ts: JSON.parse(row.ts),
    ts_ms: Number(row.ts_ms),
    seq: Number(row.seq),
  };
}

/** The bounds of a range as finite numbers (open ends become the extreme doubles). */
export function rangeBounds(range: SessionRange = {}): [number, number] {
  return [range.since ?? -Number.MAX_VALUE, range.until ?? Number.MAX_VALUE];
}

export function summaryFromRow(row: Record<string, unknown>): SessionSummary {
  return {
    session_id: String(row.session_id),
    started_ms: Number(row.started_ms),
    ended_ms: Number(row.ended_ms),
    events: Number(row.events),
  };
}

/** Sessions fetched per query by `scanSessions`. */
const SCAN_CHUNK = 512;

/**
 * Walks sessions in summary order, reading their events `SCAN_CHUNK` sessions per query;
 * `fetchChunk` returns the events of the given sessions, each session's in session order.
 */
export async function* scanInChunks(
  summaries: readonly SessionSummary[],
  fetchChunk: (sessionIds: string[]) => Promise<StoredToolEvent[]>,
): AsyncGenerator<SessionEvents> {
  for (let start = 0; start < summaries.length; start += SCAN_CHUNK) {
    const ids = summaries.slice(start, start + SCAN_CHUNK).map((summary) => summary.session_id);
    const bySession = new Map<string, StoredToolEvent[]>(ids.map((id) => [id, []]));
    for (const event of await fetchChunk(ids)) bySession.get(event.session_id)?.push(event);
    for (const id of ids) yield { session_id: id, events: bySession.get(id)! };
  }
}
