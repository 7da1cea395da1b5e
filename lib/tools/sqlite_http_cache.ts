import { DatabaseSync } from "node:sqlite";
import { ensurePrivateDirSync, joinPath, preparePrivateSqliteFile } from "../core/mod.ts";
import type { CachedHop, HttpCache } from "./http_cache_port.ts";

/** How long an answer stays fresh by default: 15 minutes. */
export const DEFAULT_HTTP_CACHE_TTL_MS = 15 * 60 * 1000;

/**
 * The `http.get` cache (Spectator §4): `<stateDir>/http_cache.sqlite`, WAL, one row per
 * full URL (its WHATWG form, so `/a` and `/a?x` and `/A` are different keys), fresh for
 * `ttlMs`. Each row says how its hosts were allowed (`hops`), so a session is served only
 * what it could fetch itself (see `http.get`'s run). Only what the tool returns is
 * stored — never a request header. Statements are
 * fixed text with bound parameters; nothing from outside becomes SQL. The folder is 0700,
 * the file and its side files 0600.
 */
export function openSqliteHttpCache(stateDir: string, options: { ttlMs?: number } = {}): HttpCache {
  ensurePrivateDirSync(stateDir);
  const path = joinPath(stateDir, "http_cache.sqlite");
  preparePrivateSqliteFile(path);
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=2000;");
  // The table before answers recorded how they were allowed: nothing in it can be served.
  db.exec(`DROP TABLE IF EXISTS http_cache; CREATE TABLE IF NOT EXISTS http_answers (
    url TEXT PRIMARY KEY, final_url TEXT NOT NULL, status INTEGER NOT NULL, content_type TEXT,
    body TEXT NOT NULL, truncated INTEGER NOT NULL, stored_at INTEGER NOT NULL,
    hops TEXT NOT NULL)`);
  const ttlMs = options.ttlMs ?? DEFAULT_HTTP_CACHE_TTL_MS;
  const select = db.prepare(
    "SELECT url, final_url, status, content_type, body, truncated, stored_at, hops FROM http_answers WHERE url = ?",
  );
  const upsert = db.prepare(
    `INSERT INTO http_answers (url, final_url, status, content_type, body, truncated, stored_at,
    hops) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET
    final_url = excluded.final_url, status = excluded.status, content_type = excluded.content_type,
    body = excluded.body, truncated = excluded.truncated, stored_at = excluded.stored_at,
    hops = excluded.hops`,
  );
  return {
    get(url, now) {
      const row = select.get(url) as Record<string, unknown> | undefined;
      if (!row || now - Number(row.stored_at) > ttlMs || now < Number(row.stored_at) - 60_000) {
        return undefined;
      }
      const hops = parseHops(row.hops);
      if (!hops) return undefined;
      return {
        url: String(row.url),
        final_url: String(row.final_url),
        status: Number(row.status),
        content_type: row.content_type === null ? null : String(row.content_type),
        body: String(row.body),
        truncated: Boolean(row.truncated),
        stored_at: Number(row.stored_at),
        hops,
      };
    },
    put(entry) {
      upsert.run(
        entry.url,
        entry.final_url,
        entry.status,
        entry.content_type,
        entry.body,
        entry.truncated ? 1 : 0,
        entry.stored_at,
        JSON.stringify(entry.hops),
      );
    },
    close() {
      db.close();
    },
  };
}

/** Hops a redirect chain can have: the first URL and five redirects. */
const MAX_HOPS = 6;

/** The stored hops, checked (the file is outside syn's control); `undefined` when malformed. */
function parseHops(text: unknown): CachedHop[] | undefined {
  if (typeof text !== "string" || text.length > 64 * 1024) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_HOPS) return undefined;
  const hops: CachedHop[] = [];
  for (const hop of value) {
    if (typeof hop?.host !== "string" || typeof hop?.exact !== "boolean") return undefined;
    hops.push({ host: hop.host, exact: hop.exact });
  }
  return hops;
}
