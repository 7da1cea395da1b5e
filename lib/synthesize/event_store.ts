import type { StoredToolEvent, ToolEvent } from "./tool_event.ts";

/** What one `append` did: events stored now, and events whose `event_id` was already there. */
export interface AppendResult {
  added: number;
  duplicates: number;
}

/**
 * A time window in unix milliseconds, both ends inclusive; a missing end is open. A
 * session is in the window when any part of it is: it ends at or after `since` and starts
 * at or before `until`.
 */
export interface SessionRange {
  since?: number;
  until?: number;
}

/** One session as `getSessions` lists it. */
export interface SessionSummary {
  session_id: string;
  /** `ts_ms` of its first event. */
  started_ms: number;
  /** `ts_ms` of its last event. */
  ended_ms: number;
  events: number;
}

/** One session and its events in session order. */
export interface SessionEvents {
  session_id: string;
  events: StoredToolEvent[];
}

/**
 * Where tool events live. Every implementation passes the one conformance suite in
 * `tests/fakes/event_store_conformance.ts`:
 *
 * - `append` is idempotent by `event_id`: a second copy (in the same call or a later one,
 *   from this or another process) is counted as a duplicate and the first copy stays.
 * - Events of a session come back ordered by `ts_ms`, then by the order they were
 *   appended (`seq`), which is file order for ingested files.
 * - Sessions are listed by their first event's time, then by id (code point order).
 */
export interface EventStore extends AsyncDisposable {
  /** Where the events are, safe to print: `sqlite <path>` or `postgres <host:port/db>`. */
  readonly location: string;
  /** Stores events (one transaction per call); `event_id`s already stored are skipped. */
  append(events: readonly ToolEvent[]): Promise<AppendResult>;
  get(eventId: string): Promise<StoredToolEvent | undefined>;
  /** A session's events in session order; `[]` for a session with none. */
  getBySession(sessionId: string): Promise<StoredToolEvent[]>;
  getSessions(range?: SessionRange): Promise<SessionSummary[]>;
  /**
   * Every session of the range with its events, in `getSessions` order, read in chunks so
   * a miner can walk a million events without one query per session.
   */
  scanSessions(range?: SessionRange): AsyncIterable<SessionEvents>;
  /** How many events and sessions are stored. */
  stats(): Promise<{ events: number; sessions: number }>;
  close(): Promise<void>;
}
