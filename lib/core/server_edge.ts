/**
 * What makes a local HTTP server safe to run, in one place for every server syn runs
 * (the chat gateway, the preview, MCP over Streamable HTTP): a Host allowlist against
 * DNS rebinding, an Origin check against other pages — the server's own origin (scheme,
 * host and port) or one allowed in full, since a page on another local port is the same
 * *site* and gets the token cookie — and a bearer token for the servers that act for the
 * user. Pure: it reads a `Request` and answers a refusal or nothing; the caller serves.
 *
 * ```ts
 * import { ServerEdge } from "./server_edge.ts";
 * const edge = new ServerEdge({ boundHostname: "127.0.0.1", port: 8080, token: "s3cret" });
 * edge.check(new Request("http://evil.example:8080/")); // 421: a rebound name
 * ```
 */
import { SynError } from "./errors.ts";

/** Names every local server answers to, whatever it is bound to (any port). */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/** Options of {@linkcode ServerEdge}. */
export interface ServerEdgeOptions {
  /** The address the listener is bound to (`127.0.0.1`, `::1`, `0.0.0.0`, a LAN address…). */
  boundHostname: string;
  /** The bound port: it names the token cookie, so two local servers keep apart. */
  port: number;
  /** More names the Host may carry (`--allow-host`: a reverse proxy's name, this machine's addresses). */
  allowHosts?: readonly string[];
  /** The bearer token every request must carry; `undefined` serves without one. */
  token?: string;
  /**
   * Other origins whose pages may call, each in full (`https://chat.example`,
   * `http://127.0.0.1:9000`: `--allow-origin`), as {@linkcode parseAllowedOrigin} takes them.
   */
  allowOrigins?: readonly string[];
}

/** How a request proved it holds the token. */
export type TokenChannel = "header" | "cookie" | "query";

/**
 * The checks, in the order they run: Host (421), Origin (403), token (401). A refusal is
 * answered by the edge alone; the application never sees the request.
 */
export class ServerEdge {
  readonly #hosts: ReadonlySet<string>;
  readonly #origins: ReadonlySet<string>;
  readonly #port: number;
  readonly #token: Uint8Array | undefined;
  readonly #tokenText: string | undefined;
  /** The cookie that keeps the token in a page after its first load. */
  readonly cookieName: string;

  constructor(options: ServerEdgeOptions) {
    const hosts = [...LOOPBACK_HOSTS, options.boundHostname, ...(options.allowHosts ?? [])];
    this.#hosts = new Set(hosts.map(normalizeHostname).filter((name) => name !== ""));
    this.#origins = new Set((options.allowOrigins ?? []).map(parseAllowedOrigin));
    this.#port = options.port;
    this.#tokenText = options.token;
    this.#token = options.token === undefined ? undefined : new TextEncoder().encode(options.token);
    this.cookieName = `syn_token_${options.port}`;
  }

  /** Whether requests must carry a token. */
  get requiresToken(): boolean {
    return this.#token !== undefined;
  }

  /** Whether `hostname` (no port, brackets allowed) is one this server answers to. */
  allowsHostname(hostname: string): boolean {
    return this.#hosts.has(normalizeHostname(hostname));
  }

  /** A refusal for `request`, or `undefined` when it may be served. */
  check(request: Request): Response | undefined {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    if (!this.allowsHostname(hostnameOfHost(host))) {
      return refusal(421, "This server does not answer to that Host\n");
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !this.#allowsOrigin(origin)) {
      return refusal(403, "Cross-origin request refused\n");
    }
    if (this.#token !== undefined && this.tokenChannel(request) === undefined) {
      return new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    return undefined;
  }

  /** By which channel `request` carries the right token (`undefined`: none does). */
  tokenChannel(request: Request): TokenChannel | undefined {
    if (this.#token === undefined) return undefined;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
    if (bearer && this.#matches(bearer[1])) return "header";
    const cookie = cookieValue(request.headers.get("cookie"), this.cookieName);
    if (cookie !== undefined && this.#matches(cookie)) return "cookie";
    const query = new URL(request.url).searchParams.get("token");
    if (query !== null && this.#matches(query)) return "query";
    return undefined;
  }

  /**
   * The `Set-Cookie` value that keeps the token in the page (HttpOnly, SameSite=Strict),
   * for a page loaded with `?token=`; `undefined` when the server has no token.
   */
  tokenCookie(): string | undefined {
    if (this.#tokenText === undefined) return undefined;
    return `${this.cookieName}=${encodeURIComponent(this.#tokenText)}; Path=/; HttpOnly; ` +
      "SameSite=Strict";
  }

  /**
   * Wraps a handler: the checks first; a page request that proved the token by query gets
   * the cookie, so reloads and WebSocket resumes keep working without the query.
   */
  wrap<A extends unknown[]>(
    handler: (request: Request, ...rest: A) => Response | Promise<Response>,
  ): (request: Request, ...rest: A) => Promise<Response> {
    return async (request, ...rest) => {
      const refused = this.check(request);
      if (refused) return refused;
      const response = await handler(request, ...rest);
      const cookie = this.tokenCookie();
      if (cookie && response.status !== 101 && this.tokenChannel(request) === "query") {
        try {
          response.headers.append("set-cookie", cookie);
        } catch {
          // immutable headers (a proxied response): the page keeps using the query
        }
      }
      return response;
    };
  }

  /**
   * The server's own origin — `http:`, a name it answers to, its bound port — or one given
   * in full. The port counts: browsers send a page on `127.0.0.1:3000` the cookies of
   * `127.0.0.1:8080` (cookies and `SameSite` ignore ports), so only the Origin tells them apart.
   */
  #allowsOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // anything unparsable
    }
    // "null" (sandboxed frames, file: pages) parses to no origin at all.
    if (url.origin === "null") return false;
    if (this.#origins.has(url.origin)) return true;
    const port = url.port === "" ? 80 : Number(url.port);
    return url.protocol === "http:" && port === this.#port && this.allowsHostname(url.hostname);
  }

  #matches(candidate: string): boolean {
    const expected = this.#token;
    if (expected === undefined) return false;
    return constantTimeEqual(expected, new TextEncoder().encode(candidate));
  }
}

/**
 * An allowed origin as the browser sends it (`scheme://host[:port]`, lower case, no default
 * port); anything else (a path, a user, a bare name, `null`) is an `invalid_option` error
 * on the `allow-origin` setting.
 */
export function parseAllowedOrigin(text: string): string {
  const refusal = () =>
    new SynError(
      "invalid_option",
      `an allowed origin is scheme://host[:port], as a browser sends it: ${text}`,
      { option: "allow-origin", value: text },
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refusal();
  }
  const bare = url.pathname === "/" && !url.search && !url.hash && !url.username &&
    !url.password && !/^[a-z][a-z0-9+.-]*:\/\/[^/]*\/./i.test(text);
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !bare) throw refusal();
  return url.origin;
}

/** Compares two byte strings in time that depends only on `expected`'s length. */
export function constantTimeEqual(expected: Uint8Array, actual: Uint8Array): boolean {
  let difference = expected.length ^ actual.length;
  for (let index = 0; index < expected.length; index++) {
    difference |= expected[index] ^ (actual[index % Math.max(actual.length, 1)] ?? 0);
  }
  return difference === 0;
}

/** The hostname of a Host header value (`[::1]:80` → `::1`, `Example.COM.:8080` → `example.com`). */
export function hostnameOfHost(host: string): string {
  const trimmed = host.trim();
  if (trimmed.startsWith("[")) {
    const end = trimmed.indexOf("]");
    return end < 0 ? "" : trimmed.slice(1, end);
  }
  const colon = trimmed.lastIndexOf(":");
  return colon < 0 ? trimmed : trimmed.slice(0, colon);
}

/** Whether `hostname` names only this machine (`localhost`, `127.0.0.0/8`, `::1`). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = normalizeHostname(hostname);
  return name === "localhost" || name === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** A fresh bearer token: 256 random bits as 64 hex digits. */
export function newServerToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The shortest `SYN_SERVER_TOKEN` a server accepts (a fresh token has 64 characters). */
export const MIN_SERVER_TOKEN_CHARS = 32;

/** The bearer token a server runs with, and whether the operator gave it. */
export interface ServerToken {
  /** `undefined` only with `--no-auth` on a loopback address. */
  token: string | undefined;
  /** It is `SYN_SERVER_TOKEN` (then it is never printed). */
  given: boolean;
}

/**
 * The token rule of every server that acts for the user: the operator's token
 * (`SYN_SERVER_TOKEN`, {@linkcode MIN_SERVER_TOKEN_CHARS} or more printable characters, no
 * spaces), else a fresh one. `noAuth` serves without a token, and only on a loopback
 * address: on any wider bind every peer on the network could use the server.
 */
export function chooseServerToken(options: {
  hostname: string;
  noAuth: boolean;
  given: string | undefined;
  newToken?: () => string;
}): ServerToken {
  if (options.noAuth) {
    if (!isLoopbackHostname(options.hostname)) {
      throw new SynError(
        "invalid_option",
        `serving without a token is refused on ${options.hostname}: it is not a loopback ` +
          "address, so a token is required (set SYN_SERVER_TOKEN or let one be generated)",
        { option: "no-auth", value: options.hostname },
      );
    }
    return { token: undefined, given: false };
  }
  const { given } = options;
  if (given === undefined) return { token: (options.newToken ?? newServerToken)(), given: false };
  if (given.length < MIN_SERVER_TOKEN_CHARS || /[^\x21-\x7e]/.test(given)) {
    throw new SynError(
      "config_error",
      `SYN_SERVER_TOKEN must be ${MIN_SERVER_TOKEN_CHARS} or more printable characters, ` +
        "no spaces (or unset: a fresh one is made)",
      { variable: "SYN_SERVER_TOKEN" },
    );
  }
  return { token: given, given: true };
}

function normalizeHostname(hostname: string): string {
  let name = hostname.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  if (name.endsWith(".")) name = name.slice(0, -1);
  return name;
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals < 0 || part.slice(0, equals).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(equals + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function refusal(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
