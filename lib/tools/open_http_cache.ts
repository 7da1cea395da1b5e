import type { HttpCache } from "./http_cache_port.ts";

/**
 * Opens the http cache in `stateDir` (see `sqlite_http_cache.ts`). SQLite is loaded here,
 * at the first call that may use the cache: `node:sqlite` starts Deno's Node layer, a cost
 * most of a bare start that fs calls and one-shot commands should not pay.
 */
export async function openHttpCache(
  stateDir: string,
  options: { ttlMs?: number } = {},
): Promise<HttpCache> {
  const { openSqliteHttpCache } = await import("./sqlite_http_cache.ts");
  return openSqliteHttpCache(stateDir, options);
}
