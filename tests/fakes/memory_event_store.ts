import { compareCodePoints, errorMessage, SynError } from "../../lib/core/mod.ts";
import {
  type AppendResult,
  compareEvents,
  type EventStore,
  type SessionEvents,
  type SessionRange,
  type SessionSummary,
  type StoredToolEvent,
  type ToolEvent,
} from "../../lib/synthesize/mod.ts";

/**
 * An `EventStore` in memory, for tests of what runs on a store: it keeps the rules of the
 * interface (it passes the same conformance suite as the SQLite and Postgres stores) with
 * no file, no database and nothing to clean up.
 */
export class MemoryEventStore implements EventStore {
  readonly location: string;
  #events = new Map<string, StoredToolEvent>();
  #seq = 0;

  constructor(location = "memory") {
    this.location = location;
  }

  append(events: readonly ToolEvent[]): Promise<AppendResult> {
    // One transaction per call, as the real stores: a batch that cannot be stored (its
    // values do not serialize) stores nothing.
    const staged = new Map<string, ToolEvent>();
    try {
      for (const event of events) {
        if (this.#events.has(event.event_id) || staged.has(event.event_id)) continue;
        staged.set(event.event_id, JSON.parse(JSON.stringify(event)));
      }
    } catch (error) {
      return Promise.reject(
        new SynError("io_error", `Cannot store events: ${errorMessage(error)}`),
      );
    }
    for (const [id, event] of staged) this.#events.set(id, { ...event, seq: ++this.#seq });
    return Promise.resolve({ added: staged.size, duplicates: events.length - staged.size });
  }

  get(eventId: string): Promise<StoredToolEvent | undefined> {
    const event = this.#events.get(eventId);
    return Promise.resolve(event ? structuredClone(event) : undefined);
  }

  getBySession(sessionId: string): Promise<StoredToolEvent[]> {
    const events = [...this.#events.values()].filter((event) => event.session_id === sessionId);
    return Promise.resolve(structuredClone(events.sort(compareEvents)));
  }

  getSessions(range: SessionRange = {}): Promise<SessionSummary[]> {
    const sessions = new Map<string, SessionSummary>();
    for (const event of this.#events.values()) {
      const known = sessions.get(event.session_id);
      sessions.set(event.session_id, {
        session_id: event.session_id,
        started_ms: Math.min(known?.started_ms ?? Infinity, event.ts_ms),
        ended_ms: Math.max(known?.ended_ms ?? -Infinity, event.ts_ms),
        events: (known?.events ?? 0) + 1,
      });
    }
    const { since = -Infinity, until = Infinity } = range;
    return Promise.resolve(
      [...sessions.values()]
        .filter((session) => session.ended_ms >= since && session.started_ms <= until)
        .sort((a, b) =>
          a.started_ms - b.started_ms || compareCodePoints(a.session_id, b.session_id)
        ),
    );
  }

  async *scanSessions(range?: SessionRange): AsyncGenerator<SessionEvents> {
    for (const session of await this.getSessions(range)) {
      yield { session_id: session.session_id, events: await this.getBySession(session.session_id) };
    }
  }

  stats(): Promise<{ events: number; sessions: number }> {
    const sessions = new Set([...this.#events.values()].map((event) => event.session_id));
    return Promise.resolve({ events: this.#events.size, sessions: sessions.size });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
