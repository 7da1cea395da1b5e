import { DatabaseSync, type DatabaseSyncOptions, type StatementSync } from "node:sqlite";
import {
  ensurePrivateDirSync,
  errorMessage,
  joinPath,
  preparePrivateSqliteFile,
  SynError,
} from "../core/mod.ts";
import {
  EVENT_COLUMNS,
  eventFromRow,
  type EventRow,
  eventValues,
  rangeBounds,
  scanInChunks,
  summaryFromRow,
} from "./_event_rows.ts";
import type {
  AppendResult,
  EventStore,
  SessionEvents,
  SessionRange,
  SessionSummary,
} from "./event_store.ts";
import type { StoredToolEvent, ToolEvent } from "./tool_event.ts";

/** The event store's file inside a state directory. */
export const SQLITE_EVENTS_FILE = "events.sqlite";

// `seq` is the rowid: it grows with every insert, which is what keeps file order.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS tool_events (
  seq INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  tool_id TEXT NOT NULL,
  input_params TEXT NOT NULL,
  output_summary TEXT,
  outcome TEXT NOT NULL,
  latency_ms INTEGER NOT NULL,
  ts TEXT NOT NULL,
  ts_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_events_session ON tool_events (session_id, ts_ms, seq);
CREATE INDEX IF NOT EXISTS tool_events_ts ON tool_events (ts_ms);
`;

const SESSIONS = `SELECT session_id, MIN(ts_ms) AS started_ms, MAX(ts_ms) AS ended_ms,
  COUNT(*) AS events FROM tool_events GROUP BY session_id
  HAVING MAX(ts_ms) >= ? AND MIN(ts_ms) <= ? ORDER BY started_ms, session_id`;

/**
 * Opens a SQLite database with what every syn database needs: WAL with NORMAL sync (1,000
 * single-row commits ≈ 9 ms instead of ≈ 0.9 s), a busy timeout for a second process, and
 * `ATTACH` refused by the attach limit — a past Deno advisory bypassed file permissions
 * through `ATTACH DATABASE`, and no statement here needs it. The file and its side files
 * are 0600 (created so before SQLite opens it).
 */
export function openSqliteDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") preparePrivateSqliteFile(path);
  // `limits` is in Deno's node:sqlite (checked: "too many attached databases - max 0") but
  // not yet in its type declarations.
  const options = { limits: { attach: 0 } } as DatabaseSyncOptions;
  const db = new DatabaseSync(path, options);
  // The busy timeout first: switching to WAL takes a lock that a second process closing the
  // same file (its last connection checkpoints) may hold for a moment.
  db.exec("PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  return db;
}

/** The default event store: `<stateDir>/events.sqlite` (the folder 0700, the file 0600). */
export function openSqliteEventStore(stateDir: string): SqliteEventStore {
  const path = joinPath(stateDir, SQLITE_EVENTS_FILE);
  try {
    ensurePrivateDirSync(stateDir);
    const db = openSqliteDatabase(path);
    db.exec(SCHEMA);
    return new SqliteEventStore(db, path);
  } catch (error) {
    throw new SynError("io_error", `Cannot open the event store ${path}: ${errorMessage(error)}`, {
      path,
    });
  }
}

/** The event store on `node:sqlite` (see `EventStore` for the rules every store keeps). */
export class SqliteEventStore implements EventStore {
  readonly location: string;
  #db: DatabaseSync;
  #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, path: string) {
    this.#db = db;
    this.location = `sqlite ${path}`;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  append(events: readonly ToolEvent[]): Promise<AppendResult> {
    if (events.length === 0) return Promise.resolve({ added: 0, duplicates: 0 });
    const insert = this.#statement(
      `INSERT INTO tool_events (event_id, session_id, tool_id, input_params, output_summary,
        outcome, latency_ms, ts, ts_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (event_id) DO NOTHING`,
    );
    let added = 0;
    // IMMEDIATE takes the write lock up front, so a second writer waits (busy_timeout)
    // instead of failing halfway through the batch.
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const event of events) added += Number(insert.run(...eventValues(event)).changes);
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      return Promise.reject(
        new SynError("io_error", `Cannot store events: ${errorMessage(error)}`),
      );
    }
    return Promise.resolve({ added, duplicates: events.length - added });
  }

  get(eventId: string): Promise<StoredToolEvent | undefined> {
    const row = this.#statement(`SELECT ${EVENT_COLUMNS} FROM tool_events WHERE event_id = ?`)
      .get(eventId) as EventRow | undefined;
    return Promise.resolve(row ? eventFromRow(row) : undefined);
  }

  getBySession(sessionId: string): Promise<StoredToolEvent[]> {
    const rows = this.#statement(
      `SELECT ${EVENT_COLUMNS} FROM tool_events WHERE session_id = ? ORDER BY ts_ms, seq`,
    ).all(sessionId) as unknown as EventRow[];
    return Promise.resolve(rows.map(eventFromRow));
  }

  getSessions(range?: SessionRange): Promise<SessionSummary[]> {
    const rows = this.#statement(SESSIONS).all(...rangeBounds(range));
    return Promise.resolve(rows.map(summaryFromRow));
  }

  async *scanSessions(range?: SessionRange): AsyncGenerator<SessionEvents> {
    const chunk = this.#statement(
      `SELECT ${EVENT_COLUMNS} FROM tool_events
        WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, ts_ms, seq`,
    );
    yield* scanInChunks(await this.getSessions(range), (ids) => {
      const rows = chunk.all(JSON.stringify(ids)) as unknown as EventRow[];
      return Promise.resolve(rows.map(eventFromRow));
    });
  }

  stats(): Promise<{ events: number; sessions: number }> {
    const row = this.#statement(
      "SELECT COUNT(*) AS events, COUNT(DISTINCT session_id) AS sessions FROM tool_events",
    ).get() as { events: number; sessions: number };
    return Promise.resolve({ events: Number(row.events), sessions: Number(row.sessions) });
  }

  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
