/**
 * The edge file every syn server listens through: `Deno.serve` with the
 * {@linkcode ServerEdge} checks in front of the application's handler.
 *
 * ```ts
 * import { serveLocal } from "./serve_local.ts";
 * const stopping = new AbortController();
 * const served = serveLocal(
 *   { hostname: "127.0.0.1", port: 0, signal: stopping.signal, token: "t" },
 *   () => new Response("hi"),
 * );
 * stopping.abort();
 * await served.server.finished;
 * ```
 */
import { ServerEdge } from "./server_edge.ts";

/** Options of {@linkcode serveLocal}. */
export interface ServeLocalOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  signal?: AbortSignal;
  /** Extra names the Host may carry (`--allow-host`). */
  allowHosts?: readonly string[];
  /** The bearer token; `undefined` serves without one. */
  token?: string;
}

/** A server listening behind the edge. */
export interface LocalServer {
  server: Deno.HttpServer<Deno.NetAddr>;
  edge: ServerEdge;
  /** The address to open: a wildcard bind is shown as `127.0.0.1`. */
  url: string;
}

/** Serves `handler` behind a {@linkcode ServerEdge} built for the bound address and port. */
export function serveLocal(
  options: ServeLocalOptions,
  handler: (
    request: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Response | Promise<Response>,
): LocalServer {
  let guarded: typeof handler = () => new Response(null, { status: 503 });
  const server = Deno.serve(
    { hostname: options.hostname, port: options.port, signal: options.signal, onListen() {} },
    (request, info) => guarded(request, info),
  );
  const { port } = server.addr;
  const edge = new ServerEdge({
    boundHostname: options.hostname,
    port,
    allowHosts: options.allowHosts,
    token: options.token,
  });
  guarded = edge.wrap(handler);
  return { server, edge, url: `http://${shownHost(options.hostname)}:${port}/` };
}

function shownHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "") return "127.0.0.1";
  if (hostname === "::") return "[::1]";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
