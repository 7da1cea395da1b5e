import type { HttpCache } from "./http_cache_port.ts";

/**
 * Opens the http cache in `stateDir` (see `sqlite_http_cache.ts`). SQLite is loaded here,
 * at the first call that may use the cache: `node:sqlite` starts Deno's Node layer, a cost
 * most of a bare start that fs calls and one-shot commands should not pay. The specifier
 * is computed, as in `shell_exec.ts`; `deno compile` embeds the file by name
 * (`scripts/compile_options.ts`).
 */
export async function openHttpCache(
  stateDir: string,
  options: { ttlMs?: number } = {},
): Promise<HttpCache> {
  const { openSqliteHttpCache }: typeof import("./sqlite_http_cache.ts") = await import(
    new URL("./sqlite_http_cache.ts", import.meta.url).href
  );
  return openSqliteHttpCache(stateDir, options);
}
