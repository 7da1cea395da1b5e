/**
 * The client half of this layer — the validator client over a connection, a child's pipes
 * or a socket — loaded at first use by a computed specifier. The server (`mcp-serve`, the
 * validator child of every `generate`) never evaluates it, and `connectValidator` starts a
 * stdio child before it loads (docs/performance.md). `deno compile` embeds the file by name
 * (`scripts/compile_options.ts`).
 */
import type * as ClientSideModule from "./validator_client.ts";

/** What {@linkcode loadClientSide} resolves to: clients over connections, children and sockets. */
export type ClientSide = typeof ClientSideModule;

/**
 * Loads the client half once per process (later calls share the module).
 *
 * ```ts
 * // createMemoryConnectionPair from lib/rpc
 * const [clientSide] = createMemoryConnectionPair();
 * const { validatorClientFromConnection } = await loadClientSide();
 * const validator = validatorClientFromConnection(clientSide);
 * ```
 */
export function loadClientSide(): Promise<ClientSide> {
  return import(new URL("./validator_client.ts", import.meta.url).href);
}
