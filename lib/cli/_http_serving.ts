/**
 * Serving MCP over Streamable HTTP from the command line, as `syn mcp-serve --http` and
 * `syn mcp-proxy --http` both do: the `--http HOST:PORT`, `--allow-host`, `--allow-origin`
 * and `--no-auth` flags, the bearer token (`SYN_SERVER_TOKEN`, or a fresh one), and the ready line that
 * tells the operator the URL and the token.
 */
import {
  chooseServerToken,
  errorMessage,
  parseAllowedOrigin,
  type SynConfig,
  SynError,
  UsageError,
} from "../core/mod.ts";
import { httpReadyLine, type McpHttpServerOptions, type RunningMcpHttpServer } from "../mcp/mod.ts";
import { numberFlag } from "./args.ts";
import { onStopSignals } from "./_stop_signals.ts";

/** The flags of HTTP serving, for `parseCommandArgs`. */
export const HTTP_FLAGS = {
  http: { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "allow-origin": { type: "string", multiple: true },
  "no-auth": { type: "boolean" },
} as const;

/** `HOST:PORT` (`[::1]:PORT` for IPv6; an empty host is 127.0.0.1) as its parts. */
export function parseHostPort(value: string, flag = "tcp"): { hostname: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!match) throw new UsageError(`--${flag} takes HOST:PORT: ${value}`);
  const hostname = match[1] ?? (match[2] || "127.0.0.1");
  const port = numberFlag(flag, match[3], { integer: true, min: 0, max: 65535 })!;
  return { hostname, port };
}

/** MCP over Streamable HTTP, before any socket is opened. */
export interface HttpServeTarget {
  hostname: string;
  port: number;
  /** `undefined` only with `--no-auth` on a loopback address. */
  token: string | undefined;
  /** Whether the token came from `SYN_SERVER_TOKEN` (then it is never printed). */
  tokenFromEnv: boolean;
  allowHosts: string[];
  /** Origins (in full) whose pages may call besides the server's own. */
  allowOrigins: string[];
}

/**
 * `--http HOST:PORT` with its token: `SYN_SERVER_TOKEN`, or a fresh one. `--no-auth` drops
 * the token only on a loopback address: anywhere else every peer on the network could call.
 */
export function resolveHttpTarget(
  flags: {
    http?: string;
    "allow-host"?: string[];
    "allow-origin"?: string[];
    "no-auth"?: boolean;
  },
  config: Pick<SynConfig, "serverToken">,
  newToken?: () => string,
): HttpServeTarget | undefined {
  const allowHosts = flags["allow-host"] ?? [];
  const allowOrigins = (flags["allow-origin"] ?? []).map(parseAllowedOrigin);
  if (flags.http === undefined) {
    const needless = flags["no-auth"]
      ? "--no-auth"
      : allowHosts.length > 0
      ? "--allow-host"
      : allowOrigins.length > 0
      ? "--allow-origin"
      : undefined;
    if (needless) throw new UsageError(`${needless} needs --http`);
    return undefined;
  }
  const { hostname, port } = parseHostPort(flags.http, "http");
  const ipv6 = /^\[?[0-9a-f:.]*:[0-9a-f:.]*\]?$/i;
  if (allowHosts.some((name) => !/^[^\s/:@[\]]+$/.test(name) && !ipv6.test(name))) {
    throw new UsageError("--allow-host takes a host name without port or scheme");
  }
  const { token, given } = chooseServerToken({
    hostname,
    noAuth: flags["no-auth"] ?? false,
    given: config.serverToken,
    newToken,
  });
  return { hostname, port, token, tokenFromEnv: given, allowHosts, allowOrigins };
}

/** What a started server tells the operator. */
export interface ReadyLines {
  /** What follows `mcp:ready ` on stderr. */
  line: string;
  /** The ready file's extra line (or ""). */
  file: string;
}

/**
 * Starts an HTTP server on the target through `serve` (a listen failure is `listen_failed`),
 * warns when it runs without a token, and says what its ready line shows: the URL, and the
 * token unless the operator set it (`token=env:SYN_SERVER_TOKEN`).
 */
export async function startHttpServing(
  target: HttpServeTarget,
  serve: (options: McpHttpServerOptions) => Promise<RunningMcpHttpServer>,
  log: (line: string) => void,
): Promise<RunningMcpHttpServer & { ready: ReadyLines }> {
  let server: RunningMcpHttpServer;
  try {
    const { hostname, port, token, allowHosts, allowOrigins } = target;
    server = await serve({ hostname, port, token, allowHosts, allowOrigins, log });
  } catch (error) {
    throw new SynError(
      "listen_failed",
      `Cannot listen on ${target.hostname}:${target.port}: ${errorMessage(error)}`,
    );
  }
  if (target.token === undefined) {
    log(
      `mcp:warn no-auth: any program on this machine may call ${server.url} without a token ` +
        "(the Host and Origin checks still refuse web pages and rebound names)",
    );
  }
  // A token the operator set is theirs already: it stays out of logs.
  const shown = target.tokenFromEnv ? "env:SYN_SERVER_TOKEN" : target.token;
  const token = (value: string | undefined) => value === undefined ? "" : ` token=${value}`;
  return Object.assign(server, {
    ready: {
      line: `mode=http url=${server.url}${token(shown)}`,
      file: httpReadyLine(server.url, target.token),
    },
  });
}

/** Resolves on the first SIGINT or SIGTERM; `dispose` stops listening for them. */
export function stopSignal(): { requested: Promise<void> } & Disposable {
  const { promise, resolve } = Promise.withResolvers<void>();
  const stopListening = onStopSignals(() => resolve());
  return { requested: promise, [Symbol.dispose]: stopListening };
}
