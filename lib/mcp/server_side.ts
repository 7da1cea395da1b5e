/**
 * The server half of this layer — the validator service, its per-connection handler, its
 * NDJSON and Streamable HTTP servers, and the tool server — loaded at first use by a
 * computed specifier. A client (`generate` starting its validator child, `critique`,
 * `patch`) never evaluates it, and the child's start is what a one-shot `generate` waits
 * for (docs/performance.md). `deno compile` embeds the file by name
 * (`scripts/compile_options.ts`).
 */
import type * as ServerSideModule from "./_server_side.ts";

/** What {@linkcode loadServerSide} resolves to: the service, its handler and its servers. */
export type ServerSide = typeof ServerSideModule;

/**
 * Loads the server half once per process (later calls share the module).
 *
 * ```ts
 * // loadSchemaStore from lib/schema
 * const server = await loadServerSide();
 * const service = new server.ValidatorService({ store: await loadSchemaStore() });
 * const running = await server.startValidatorServer(
 *   { mode: "tcp", hostname: "127.0.0.1", port: 0 },
 *   () => server.createValidatorHandler(service),
 * );
 * ```
 */
export function loadServerSide(): Promise<ServerSide> {
  return import(new URL("./_server_side.ts", import.meta.url).href);
}
