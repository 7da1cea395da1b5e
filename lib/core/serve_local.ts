/**
 * The edge file every syn server listens through: `Deno.serve` with the
 * {@linkcode ServerEdge} checks in front of the application's handler, a cap on in-flight
 * requests (in all and per peer), and a listener that outlives accept errors.
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
import { ConnectionLimit } from "./connection_limit.ts";
import { ServerEdge } from "./server_edge.ts";

/** In-flight requests served at once, all peers together (default of `maxRequests`). */
export const DEFAULT_MAX_REQUESTS = 256;
/** In-flight requests of one peer (default of `maxRequestsPerPeer`). */
export const DEFAULT_MAX_REQUESTS_PER_PEER = 64;

/** Options of {@linkcode serveLocal}. */
export interface ServeLocalOptions {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
  signal?: AbortSignal;
  /** Extra names the Host may carry (`--allow-host`). */
  allowHosts?: readonly string[];
  /** Origins, each in full, whose pages may call besides the server's own (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /** The bearer token; `undefined` serves without one. */
  token?: string;
  /** In-flight requests at once; the excess is answered 503 (default 256). */
  maxRequests?: number;
  /** In-flight requests of one peer address; the excess is answered 503 (default 64). */
  maxRequestsPerPeer?: number;
  /** Told when the listener failed and is being opened again (an accept error: EMFILE…). */
  onListenerError?: (error: unknown) => void;
  /** This machine's interface addresses (default `Deno.networkInterfaces`), for wildcard binds. */
  interfaceAddresses?: () => string[];
}

/** A server listening behind the edge. */
export interface LocalServer {
  server: Deno.HttpServer<Deno.NetAddr>;
  edge: ServerEdge;
  /** The address to open: a wildcard bind is shown as `127.0.0.1`. */
  url: string;
}

type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/**
 * Serves `handler` behind a {@linkcode ServerEdge} built for the bound address and port.
 * A wildcard bind (`0.0.0.0`, `::`) also answers to this machine's interface addresses.
 */
export function serveLocal(options: ServeLocalOptions, handler: Handler): LocalServer {
  const limit = new ConnectionLimit({
    total: options.maxRequests ?? DEFAULT_MAX_REQUESTS,
    perPeer: options.maxRequestsPerPeer ?? DEFAULT_MAX_REQUESTS_PER_PEER,
  });
  let guarded: Handler = () => new Response(null, { status: 503 });
  const counted: Handler = async (request, info) => {
    const release = limit.acquire(info.remoteAddr.hostname);
    if (!release) return busy();
    try {
      return await guarded(request, info);
    } finally {
      release();
    }
  };
  const server = new ResilientServer(options, counted);
  const { port } = server.addr;
  const wildcard = isWildcard(options.hostname);
  const edge = new ServerEdge({
    boundHostname: options.hostname,
    port,
    allowHosts: [
      ...(options.allowHosts ?? []),
      ...(wildcard ? (options.interfaceAddresses ?? systemAddresses)() : []),
    ],
    token: options.token,
    allowOrigins: options.allowOrigins,
  });
  guarded = edge.wrap(handler);
  return { server, edge, url: `http://${shownHost(options.hostname)}:${port}/` };
}

/**
 * `Deno.serve` ends for good when its accept loop fails (measured on Deno 2.9.6: with the
 * descriptors used up, `finished` rejects with "Too many open files" and the port is
 * closed). This keeps the server: the listener is opened again on the same address, with
 * backoff, until it binds or the signal stops it; the connections already served go on.
 */
class ResilientServer implements Deno.HttpServer<Deno.NetAddr> {
  readonly addr: Deno.NetAddr;
  readonly finished: Promise<void>;
  #current: Deno.HttpServer<Deno.NetAddr>;
  #options: ServeLocalOptions;
  #handler: Handler;
  #referenced = true;

  constructor(options: ServeLocalOptions, handler: Handler) {
    this.#options = options;
    this.#handler = handler;
    this.#current = this.#listen(options.port);
    this.addr = this.#current.addr;
    this.finished = this.#watch();
  }

  #listen(port: number): Deno.HttpServer<Deno.NetAddr> {
    const server = Deno.serve({
      hostname: this.#options.hostname,
      port,
      signal: this.#options.signal,
      onListen() {},
    }, this.#handler);
    if (!this.#referenced) server.unref();
    return server;
  }

  async #watch(): Promise<void> {
    let delay = 25;
    while (true) {
      try {
        await this.#current.finished;
        return;
      } catch (error) {
        if (this.#options.signal?.aborted) return;
        this.#options.onListenerError?.(error);
      }
      while (!this.#options.signal?.aborted) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(1000, delay * 2);
        try {
          this.#current = this.#listen(this.addr.port);
          delay = 25;
          break;
        } catch (error) {
          this.#options.onListenerError?.(error);
        }
      }
      if (this.#options.signal?.aborted) return;
    }
  }

  ref(): void {
    this.#referenced = true;
    this.#current.ref();
  }

  unref(): void {
    this.#referenced = false;
    this.#current.unref();
  }

  shutdown(): Promise<void> {
    return this.#current.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#current.shutdown();
  }
}

function busy(): Response {
  return new Response("Too many requests in flight; try again shortly\n", {
    status: 503,
    headers: { "retry-after": "1", "content-type": "text/plain; charset=utf-8" },
  });
}

function isWildcard(hostname: string): boolean {
  return hostname === "0.0.0.0" || hostname === "::" || hostname === "";
}

function systemAddresses(): string[] {
  try {
    return Deno.networkInterfaces().map((entry) => entry.address);
  } catch {
    return []; // no --allow-sys: only loopback and --allow-host
  }
}

function shownHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "") return "127.0.0.1";
  if (hostname === "::") return "[::1]";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}
