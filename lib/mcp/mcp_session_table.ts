import type { Clock } from "../core/mod.ts";

/** What the table holds per session: anything it can close. */
export interface Closable {
  close(): Promise<void>;
}

/** Options of {@linkcode McpSessionTable}. */
export interface McpSessionTableOptions {
  /** Live sessions at most (sessions being opened count too). */
  maxSessions: number;
  /** A session with no request for this long is closed by `expireIdle`. */
  idleMs: number;
  clock: Clock;
}

interface Entry<S> {
  session: S;
  lastUsed: number;
  /** Requests of this session still being answered: never expired while above 0. */
  active: number;
}

/**
 * The live MCP sessions of one HTTP server: a cap on how many a client can make us hold,
 * idle expiry, and closing them all on shutdown. Time comes from the injected clock, so
 * expiry is tested without waiting.
 *
 * Idle means no request began or was answered for `idleMs`. A standalone stream (the GET a
 * client may hold for server-sent messages) is not a request being answered: counted as
 * one it would keep its session forever, and one client holding the table full of such
 * streams would lock every other client out.
 */
export class McpSessionTable<S extends Closable> {
  readonly #entries = new Map<string, Entry<S>>();
  readonly #options: McpSessionTableOptions;
  #reserved = 0;

  constructor(options: McpSessionTableOptions) {
    this.#options = options;
  }

  /** Live sessions, not counting those being opened. */
  get size(): number {
    return this.#entries.size;
  }

  /** Reserves room for a session about to be opened; `false` when the table is full. */
  reserve(): boolean {
    if (this.#entries.size + this.#reserved >= this.#options.maxSessions) return false;
    this.#reserved++;
    return true;
  }

  /** Gives back a reservation (the session was added, or was never opened). */
  release(): void {
    if (this.#reserved > 0) this.#reserved--;
  }

  add(id: string, session: S): void {
    this.#entries.set(id, { session, lastUsed: this.#options.clock.now(), active: 0 });
  }

  /** The session, marked busy until `end(id)`; `undefined` if there is none by that id. */
  begin(id: string): S | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    entry.active++;
    entry.lastUsed = this.#options.clock.now();
    return entry.session;
  }

  /**
   * The session, its idle time started again, not marked busy: for a request that does not
   * end on its own (a standalone stream). `undefined` if there is none by that id.
   */
  touch(id: string): S | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    entry.lastUsed = this.#options.clock.now();
    return entry.session;
  }

  end(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    entry.active = Math.max(0, entry.active - 1);
    entry.lastUsed = this.#options.clock.now();
  }

  /** Forgets a session without closing it (it closed itself); whether it was there. */
  delete(id: string): boolean {
    return this.#entries.delete(id);
  }

  /**
   * Closes and forgets every session idle past the limit, open streams or not (closing a
   * session ends its streams); returns their ids.
   */
  async expireIdle(): Promise<string[]> {
    const limit = this.#options.clock.now() - this.#options.idleMs;
    const expired: string[] = [];
    for (const [id, entry] of this.#entries) {
      if (entry.active === 0 && entry.lastUsed <= limit) expired.push(id);
    }
    await this.#close(expired);
    return expired;
  }

  /** Closes and forgets every session. */
  async closeAll(): Promise<void> {
    await this.#close([...this.#entries.keys()]);
  }

  async #close(ids: readonly string[]): Promise<void> {
    const sessions = ids.flatMap((id) => {
      const entry = this.#entries.get(id);
      this.#entries.delete(id);
      return entry ? [entry.session] : [];
    });
    await Promise.all(sessions.map((session) => session.close().catch(() => {})));
  }
}
