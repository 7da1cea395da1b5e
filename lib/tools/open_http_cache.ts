import type { HttpCache } from "./http_cache_port.ts";
import { openSqliteHttpCache } from "./sqlite_http_cache.ts";

/**
 * Opens the http cache in `stateDir` (see `sqlite_http_cache.ts`). Loading `node:sqlite`
 * costs a start about 1 ms (docs/performance.md), unlike most `node:` modules, so it is
 * imported with the tools.
 */
export function openHttpCache(
  stateDir: string,
  options: { ttlMs?: number } = {},
): Promise<HttpCache> {
  // A failure to open is a rejection, as callers await it.
  return new Promise((resolve) => resolve(openSqliteHttpCache(stateDir, options)));
}
