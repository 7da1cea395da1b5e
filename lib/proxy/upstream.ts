/**
 * The upstream MCP server the proxy stands in front of: a command started on stdio, or a
 * server on Streamable HTTP with its auth headers. Connected with the official SDK client;
 * closed so that nothing is left behind: an HTTP session is deleted upstream (`DELETE`),
 * a command's input is closed and the process is given a bounded grace to exit.
 */
import {
  Client,
  type ClientCapabilities,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  basenameOf,
  errorMessage,
  neutralizeTerminalText,
  readLines,
  secretsFromUrl,
  SynError,
  VERSION,
} from "../core/mod.ts";
import { concatBytes } from "../core/mod.ts";

/** Where the upstream is. Header values are secrets: never printed or recorded. */
export type UpstreamTarget =
  | {
    kind: "stdio";
    command: string;
    args: string[];
    cwd?: string;
    /** Its environment (default: the SDK's few inherited variables, PATH, HOME, …). */
    env?: Record<string, string>;
  }
  | { kind: "http"; url: string; headers: Record<string, string> };

/** Most pages of `tools/list` read from an upstream (a peer could page forever). */
const MAX_TOOL_PAGES = 100;
/** How long a `DELETE` of an upstream HTTP session may take before the proxy lets go. */
export const SESSION_DELETE_TIMEOUT_MS = 5_000;
/** Most characters of an upstream's error body put in a message. */
const MAX_ERROR_BODY_CHARS = 300;
/** Most bytes of an upstream's error body read (the SDK reads what is kept). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Longest stderr line of an upstream passed on whole (UTF-8 bytes); longer ones are cut. */
const MAX_STDERR_LINE_BYTES = 4096;
/** Last stderr lines kept to explain an upstream that failed to start. */
const KEPT_STDERR_LINES = 5;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Where the upstream is, as given: a command to start, or a URL with its headers —
 * `Name: value`, and `Name=ENV_NAME` for a value read from the environment.
 */
export type UpstreamSpec =
  | { command: readonly string[] }
  | { url: string; headers?: readonly string[]; headerVariables?: readonly string[] };

/**
 * The target a spec names. `environment` is the configuration's view of the environment,
 * where `ENV_NAME`s are looked up. A URL that is not http(s), a malformed header or a
 * variable that is not set is a `SynError` `invalid_option` naming its setting
 * (`upstream-url`, `upstream-header`, `upstream-header-env`).
 */
export function upstreamTargetOf(
  spec: UpstreamSpec,
  options: { environment?: Readonly<Record<string, string>> } = {},
): UpstreamTarget {
  if ("command" in spec) {
    return { kind: "stdio", command: spec.command[0], args: spec.command.slice(1) };
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(spec.url);
  } catch {
    // refused below
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    // The URL itself is left out: it may carry credentials.
    throw invalidOption("upstream-url", "the upstream URL is not an http:// or https:// URL");
  }
  const headers: Record<string, string> = {};
  for (const header of spec.headers ?? []) {
    const match = /^([^:]+):\s*(.*)$/.exec(header);
    if (!match || !HEADER_NAME.test(match[1])) {
      throw invalidOption("upstream-header", "a header is 'Name: value'");
    }
    headers[match[1]] = match[2];
  }
  for (const header of spec.headerVariables ?? []) {
    headers[header.split("=")[0]] = headerFromEnvironment(header, options.environment ?? {});
  }
  return { kind: "http", url: parsed.href, headers };
}

function invalidOption(option: string, message: string): SynError {
  return new SynError("invalid_option", message, { option });
}

/** The value of a header read from the environment (`Name=ENV_NAME`): the variable's, which must be set. */
function headerFromEnvironment(
  pair: string,
  environment: Readonly<Record<string, string>>,
): string {
  const match = /^([^=]+)=(.*)$/.exec(pair);
  if (!match || !HEADER_NAME.test(match[1]) || !ENV_NAME.test(match[2])) {
    throw invalidOption(
      "upstream-header-env",
      "a header read from the environment takes 'Name=ENV_NAME', e.g. 'Authorization=MCP_UPSTREAM_AUTH'",
    );
  }
  const value = environment[match[2]];
  if (value === undefined || value === "") {
    throw invalidOption(
      "upstream-header-env",
      `${match[1]}=${match[2]}: ${match[2]} is not set ` +
        `(export it with the header's whole value, e.g. "Bearer …")`,
    );
  }
  if (/[\r\n\0]/.test(value)) {
    throw invalidOption("upstream-header-env", `${match[2]} holds a line break`);
  }
  return value.trim();
}

/**
 * The secrets a target carries: its header values, and the URL's credentials in every form
 * they travel in (percent-decoded, and as the Basic credentials `fetch` sends).
 */
export function upstreamSecrets(target: UpstreamTarget): string[] {
  if (target.kind === "stdio") return [];
  return [
    ...Object.values(target.headers).filter((value) => value.length >= 4),
    ...secretsFromUrl(target.url),
  ];
}

/** A safe name of the target for messages: the command's name, or the URL's origin. */
export function describeUpstream(target: UpstreamTarget): string {
  return target.kind === "stdio" ? target.command : new URL(target.url).origin;
}

/** Programs that run a script: the script names the server better than they do. */
const RUNNERS =
  /^(node|nodejs|deno|bun|npx|pnpx|bunx|uv|uvx|python[0-9.]*|ruby|perl|java|sh|bash)$/;

/**
 * The upstream's short name, the prefix of its stderr lines: the command's file name, or
 * for a runner (`node`, `deno run`, `python3`, `npx`) the first argument naming a script
 * or package (`node dist/index.js` → `index.js`).
 */
export function upstreamName(target: UpstreamTarget): string {
  if (target.kind === "http") return new URL(target.url).host;
  const program = basenameOf(target.command);
  if (!RUNNERS.test(program)) return program;
  const script = target.args.find((arg) =>
    !arg.startsWith("-") && !["run", "exec", "x", "tool", "serve"].includes(arg)
  );
  return script === undefined ? program : basenameOf(script.replace(/\/+$/, "")) || program;
}

/** Options of {@linkcode connectUpstream}. */
export interface ConnectUpstreamOptions {
  capabilities?: ClientCapabilities;
  /** Registers handlers before the handshake, so a request the upstream sends at once finds one. */
  setup?: (client: Client) => void;
  /**
   * Each line the upstream writes on its stderr (a command's): the caller prefixes and
   * shows it. Without it the lines pass through to this process's stderr as they are.
   */
  stderrLine?: (line: string) => void;
}

/**
 * Connects to the upstream as an MCP client. A failure says why: an HTTP upstream's status
 * and its error body (capped, made printable), a command's last stderr lines.
 */
export async function connectUpstream(
  target: UpstreamTarget,
  options: ConnectUpstreamOptions = {},
): Promise<Client> {
  const client = new Client(
    { name: "syn-mcp-proxy", version: VERSION },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  const failure: { http?: string } = {};
  const lastLines: string[] = [];
  const transport = target.kind === "stdio"
    ? stdioTransport(target, (line) => {
      lastLines.push(line);
      if (lastLines.length > KEPT_STDERR_LINES) lastLines.shift();
      options.stderrLine?.(line);
    }, options.stderrLine !== undefined)
    : new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
      fetch: fetchNotingFailures(failure),
    });
  try {
    await client.connect(transport);
  } catch (error) {
    await closeUpstream(client).catch(() => {});
    throw new Error(connectFailure(error, failure.http, lastLines));
  }
  return client;
}

function connectFailure(error: unknown, http: string | undefined, lines: string[]): string {
  if (http !== undefined) return `the upstream answered ${http}`;
  const said = lines.length
    ? `; its last stderr lines: ${lines.map((line) => neutralizeTerminalText(line)).join(" | ")}`
    : "";
  return `${errorMessage(error)}${said}`;
}

function stdioTransport(
  target: Extract<UpstreamTarget, { kind: "stdio" }>,
  onLine: (line: string) => void,
  piped: boolean,
): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    cwd: target.cwd,
    env: target.env,
    stderr: piped ? "pipe" : "inherit",
  });
  if (piped) forwardLines(transport.stderr, onLine);
  return transport;
}

/**
 * Calls `onLine` for each line of a Node-style stream, read by core's `readLines`: a line
 * past the cap is given as its first bytes and `…`, the rest of it never held.
 */
function forwardLines(
  stream: { on(event: string, listener: (chunk?: Uint8Array | string) => void): unknown } | null,
  onLine: (line: string) => void,
): void {
  if (!stream) return;
  const encoder = new TextEncoder();
  const bytes = new ReadableStream<Uint8Array>({
    start(controller) {
      // A chunk after the end, or a second end, is let go: nothing may throw in an emitter.
      const quietly = (step: () => void) => {
        try {
          step();
        } catch {
          // the stream is closed already
        }
      };
      stream.on("data", (chunk) => {
        if (chunk === undefined) return;
        const value = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
        quietly(() => controller.enqueue(value));
      });
      const end = () => quietly(() => controller.close());
      stream.on("end", end);
      stream.on("close", end);
    },
  });
  const cap = { maxLineBytes: MAX_STDERR_LINE_BYTES, keptPrefixBytes: MAX_STDERR_LINE_BYTES };
  void (async () => {
    for await (const read of readLines(bytes, cap)) {
      if (read.kind === "line") onLine(read.text);
      else if (read.kind === "oversize") onLine(`${read.prefix}…`);
    }
  })().catch(() => {});
}

/**
 * `fetch`, noting the last refusal: its status and the start of its body, printable. The
 * SDK's own message for a refusal drops the status (`Error POSTing to endpoint:`).
 */
function fetchNotingFailures(failure: { http?: string }): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok || (init?.method === "DELETE" && response.status === 405)) return response;
    const bytes = await readPrefix(response, MAX_ERROR_BODY_BYTES);
    const text = new TextDecoder().decode(bytes);
    failure.http = describeRefusal(response, text);
    return new Response(bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `HTTP 401 Unauthorized: <body>`, the body's whitespace folded, capped and printable. */
export function describeRefusal(response: Pick<Response, "status" | "statusText">, body: string) {
  const folded = neutralizeTerminalText(body.replace(/\s+/g, " ").trim());
  const shown = folded.length > MAX_ERROR_BODY_CHARS
    ? `${folded.slice(0, MAX_ERROR_BODY_CHARS)}…`
    : folded;
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  return shown ? `${status}: ${shown}` : status;
}

async function readPrefix(
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, maxBytes - total));
      total += Math.min(value.byteLength, maxBytes - total);
    }
  } catch {
    // What came is enough to say why.
  } finally {
    await reader.cancel().catch(() => {});
  }
  return concatBytes(chunks, total) as Uint8Array<ArrayBuffer>;
}

/**
 * Ends an upstream connection so nothing is left: an HTTP session is deleted upstream
 * (`DELETE`, at most {@linkcode SESSION_DELETE_TIMEOUT_MS}); a command's input is closed
 * and it gets two seconds to exit, then SIGTERM and two more, then SIGKILL (the SDK's
 * close). Resolves when that is done.
 */
export async function closeUpstream(client: Client): Promise<void> {
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => {}),
      new Promise<void>((resolve) => timer = setTimeout(resolve, SESSION_DELETE_TIMEOUT_MS)),
    ]);
    clearTimeout(timer);
  }
  await client.close();
}

/** Every tool the upstream lists, all pages (at most 100). */
export async function listAllTools(client: Client): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}
