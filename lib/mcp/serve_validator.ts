import { errorMessage, SynError } from "../core/mod.ts";
import {
  ListenerServer,
  type RpcConnection,
  type RpcHandler,
  serveConnection,
  settlesWithin,
  SHUTDOWN_GRACE_MS,
} from "../rpc/mod.ts";

/** Where the service listens. */
export type ValidatorEndpoint =
  | { mode: "stdio"; connection: RpcConnection }
  | { mode: "tcp"; hostname: string; port: number }
  | { mode: "socket"; path: string };

/** A running server. */
export interface RunningValidatorServer {
  readonly mode: "stdio" | "tcp" | "socket";
  /** `host:port` for TCP (the real port when 0 was asked), the path for a socket. */
  readonly address: string;
  /**
   * Resolves when the server has stopped (stdin EOF for stdio, or after `shutdown`); for
   * stdio it stays pending while a write to a reader that stopped reading is stuck.
   */
  readonly finished: Promise<void>;
  /**
   * Stops accepting, lets in-flight requests finish and be answered, then closes all;
   * resolves within the shutdown grace period at the latest. Idempotent.
   */
  shutdown(): Promise<void>;
}

/**
 * Starts serving NDJSON JSON-RPC on an endpoint, one handler per connection. A stale
 * Unix socket file is replaced; a socket a live server still answers on is an error,
 * and so is a path that is not a socket. The socket file is removed on shutdown.
 * `shutdownGraceMs` (default 10 s) bounds how long a shutdown waits for replies that a
 * peer does not read. `log` receives the listener's diagnostics (refused connections).
 */
export async function startValidatorServer(
  endpoint: ValidatorEndpoint,
  createHandler: () => RpcHandler,
  options: { shutdownGraceMs?: number; log?: (line: string) => void } = {},
): Promise<RunningValidatorServer> {
  const shutdownGraceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
  const log = options.log;
  if (endpoint.mode === "stdio") {
    const abort = new AbortController();
    const finished = serveConnection(endpoint.connection, createHandler(), {
      signal: abort.signal,
    });
    let stopping: Promise<void> | undefined;
    return {
      mode: "stdio",
      address: "stdio",
      finished,
      shutdown() {
        stopping ??= (async () => {
          abort.abort();
          // A reader that stopped reading our output must not keep the process alive.
          await settlesWithin(finished, shutdownGraceMs);
          endpoint.connection.close();
        })();
        return stopping;
      },
    };
  }
  if (endpoint.mode === "tcp") {
    let listener: Deno.Listener;
    try {
      listener = Deno.listen({ hostname: endpoint.hostname, port: endpoint.port });
    } catch (error) {
      throw new SynError(
        "listen_failed",
        `Cannot listen on ${endpoint.hostname}:${endpoint.port}: ${errorMessage(error)}`,
      );
    }
    const server = new ListenerServer(listener, createHandler, { shutdownGraceMs, log });
    const addr = listener.addr as Deno.NetAddr;
    return listening("tcp", `${addr.hostname}:${addr.port}`, server, () => {});
  }
  await replaceStaleSocket(endpoint.path);
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ transport: "unix", path: endpoint.path });
  } catch (error) {
    throw new SynError(
      "listen_failed",
      `Cannot listen on ${endpoint.path}: ${errorMessage(error)}`,
    );
  }
  const server = new ListenerServer(listener, createHandler, { shutdownGraceMs, log });
  return listening("socket", endpoint.path, server, () => {
    try {
      Deno.removeSync(endpoint.path);
    } catch {
      // already gone
    }
  });
}

function listening(
  mode: "tcp" | "socket",
  address: string,
  server: ListenerServer,
  cleanup: () => void,
): RunningValidatorServer {
  let resolveFinished!: () => void;
  const finished = new Promise<void>((resolve) => (resolveFinished = resolve));
  let stopping: Promise<void> | undefined;
  return {
    mode,
    address,
    finished,
    shutdown() {
      stopping ??= server.shutdown().finally(() => {
        cleanup();
        resolveFinished();
      });
      return stopping;
    },
  };
}

async function replaceStaleSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return; // nothing there
  }
  if (!info.isSocket) {
    throw new SynError("listen_failed", `Refusing to replace a file that is not a socket: ${path}`);
  }
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    throw new SynError("listen_failed", `A server is already listening on: ${path}`);
  } catch (error) {
    if (error instanceof SynError) throw error;
  }
  await Deno.remove(path);
}
