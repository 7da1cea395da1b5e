/**
 * One host an answer came through, and whether the session that fetched it reached the
 * host by an exact grant (`net:<host>`) — which opens loopback and private addresses — or
 * by plain `net`, after every address it resolved to was checked public.
 */
export interface CachedHop {
  host: string;
  exact: boolean;
}

/** A cached http answer: what `http.get` returns, plus when it was stored and how it was allowed. */
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
  /** Every host fetched on the way, in order (the redirects), as it was allowed. */
  hops: CachedHop[];
}

/** The http cache as tools see it; `sqlite_http_cache.ts` keeps it in SQLite. */
export interface HttpCache {
  /** A fresh entry for exactly this URL, or `undefined`. */
  get(url: string, now: number): CachedResponse | undefined;
  put(entry: CachedResponse): void;
  close(): void;
}
