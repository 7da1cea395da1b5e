import { DatabaseSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { join } from "node:path";

/** One remembered item: a past turn or a note, with a stable id. */
export interface MemoryItem {
  id: string;
  session_id: string;
  kind: "turn" | "note";
  text: string;
  /** Unix seconds. */
  ts: number;
}

/** A retrieval hit: the item and its score (higher is better). */
export interface MemoryHit {
  id: string;
  score: number;
  excerpt: string;
}

const MAX_TEXT_CHARS = 20_000;
const EXCERPT_CHARS = 240;

/**
 * Chat memory per state directory: past turns and notes in SQLite FTS5, ranked with
 * BM25 (Spectator §5). Stable ids (`mem_<hex>`), bound parameters only, `ATTACH`
 * refused by construction (no statement text comes from outside).
 */
export class MemoryStore {
  #db: DatabaseSync;

  private constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Opens (creating) `<stateDir>/memory.sqlite`; `":memory:"` for a throwaway store. */
  static open(stateDir: string | ":memory:"): MemoryStore {
    const path = stateDir === ":memory:" ? ":memory:" : join(stateDir, "memory.sqlite");
    if (stateDir !== ":memory:") Deno.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const db = new DatabaseSync(path);
    db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    db.exec(`CREATE TABLE IF NOT EXISTS memory (
      id TEXT PRIMARY KEY, session_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL, ts REAL NOT NULL)`);
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, id UNINDEXED, tokenize='unicode61')`,
    );
    return new MemoryStore(db);
  }

  /**
   * Stores an item (its id is derived from session, kind, time and text when absent). The
   * row is written before this returns, so a search right after a `void add()` finds it.
   */
  add(item: Omit<MemoryItem, "id"> & { id?: string }): Promise<string> {
    try {
      return Promise.resolve(this.#addNow(item));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #addNow(item: Omit<MemoryItem, "id"> & { id?: string }): string {
    const text = item.text.slice(0, MAX_TEXT_CHARS);
    const id = item.id ?? memoryId(item.session_id, item.kind, item.ts, text);
    const exists = this.#db.prepare("SELECT 1 FROM memory WHERE id = ?").get(id);
    if (exists) return id;
    this.#db.prepare("INSERT INTO memory (id, session_id, kind, text, ts) VALUES (?, ?, ?, ?, ?)")
      .run(id, item.session_id, item.kind, text, item.ts);
    this.#db.prepare("INSERT INTO memory_fts (text, id) VALUES (?, ?)").run(text, id);
    return id;
  }

  /** The best `limit` items for `query` by BM25; an empty query finds nothing. */
  search(query: string, limit = 5): MemoryHit[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const rows = this.#db.prepare(
      "SELECT id, text, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?",
    ).all(match, Math.max(1, Math.min(50, limit))) as { id: string; text: string; rank: number }[];
    // bm25() is lower-is-better and negative; report a positive score, higher is better.
    return rows.map((row) => ({
      id: row.id,
      score: Number((-row.rank).toFixed(3)),
      excerpt: row.text.replace(/\s+/g, " ").slice(0, EXCERPT_CHARS),
    }));
  }

  get(id: string): MemoryItem | undefined {
    return this.#db.prepare("SELECT id, session_id, kind, text, ts FROM memory WHERE id = ?").get(
      id,
    ) as
      | MemoryItem
      | undefined;
  }

  close(): void {
    this.#db.close();
  }
}

/** FTS5 query from free text: words only, each quoted, OR-ed (never FTS syntax from a user). */
function ftsQuery(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? [];
  return [...new Set(words)].slice(0, 32).map((word) => `"${word}"`).join(" OR ");
}

function memoryId(session: string, kind: string, ts: number, text: string): string {
  const digest = createHash("sha256").update(`${session}\u0000${kind}\u0000${ts}\u0000${text}`)
    .digest("hex");
  return `mem_${digest.slice(0, 16)}`;
}

/** The block injected into the system prompt (Spectator §5), exactly as specified. */
export function retrievedMemoryBlock(hits: readonly MemoryHit[]): string {
  const lines = ["=== RETRIEVED_MEMORY ==="];
  for (const hit of hits) {
    lines.push(`- id=${hit.id} score=${hit.score.toFixed(3)}`);
    lines.push(`  ${hit.excerpt}`);
  }
  lines.push("=== END_RETRIEVED_MEMORY ===");
  return lines.join("\n");
}

/** `[mem:<id>]` citations in a reply, each marked as retrieved for this reply or not. */
export function checkCitations(
  text: string,
  retrieved: ReadonlySet<string>,
): { id: string; valid: boolean }[] {
  const seen = new Set<string>();
  const citations: { id: string; valid: boolean }[] = [];
  for (const match of text.matchAll(/\[mem:([A-Za-z0-9_-]{1,64})\]/g)) {
    if (seen.has(match[1])) continue;
    seen.add(match[1]);
    citations.push({ id: match[1], valid: retrieved.has(match[1]) });
  }
  return citations;
}
