/** A cached http answer: what `http.get` returns, plus when it was stored. */
export interface CachedResponse {
  /** The URL asked for (the cache key). */
  url: string;
  /** Where the answer came from after redirects. */
  final_url: string;
  status: number;
  content_type: string | null;
  body: string;
  truncated: boolean;
  /** When it was stored, ms since the epoch. */
  stored_at: number;
}

/** The http cache as tools see it; `sqlite_http_cache.ts` keeps it in SQLite. */
export interface HttpCache {
  /** A fresh entry for exactly this URL, or `undefined`. */
  get(url: string, now: number): CachedResponse | undefined;
  put(entry: CachedResponse): void;
  close(): void;
}
