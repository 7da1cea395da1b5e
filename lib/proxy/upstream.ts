/**
 * The upstream MCP server the proxy stands in front of: a command started on stdio, or a
 * server on Streamable HTTP with its auth headers. Connected with the official SDK client.
 */
import {
  Client,
  type ClientCapabilities,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { UsageError, VERSION } from "../core/mod.ts";

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

/**
 * The target the flags name: `--upstream-url URL` (with `--upstream-header 'Name: value'`,
 * repeatable) or the command after `--`. Throws `UsageError` for neither, both, or a
 * header that is not `Name: value`.
 */
export function upstreamTargetOf(
  flags: { "upstream-url"?: string; "upstream-header"?: string[] },
  command: readonly string[],
): UpstreamTarget {
  const url = flags["upstream-url"];
  if (url !== undefined && command.length) {
    throw new UsageError("give the upstream as --upstream-url URL or after --, not both");
  }
  if (url === undefined) {
    if (!command.length) {
      throw new UsageError("name the upstream: -- <command> [args…], or --upstream-url URL");
    }
    if (flags["upstream-header"]?.length) {
      throw new UsageError("--upstream-header goes with --upstream-url");
    }
    return { kind: "stdio", command: command[0], args: command.slice(1) };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError("--upstream-url takes an http:// or https:// URL");
  }
  if (!/^https?:$/.test(parsed.protocol)) {
    throw new UsageError("--upstream-url takes an http:// or https:// URL");
  }
  const headers: Record<string, string> = {};
  for (const header of flags["upstream-header"] ?? []) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(header);
    if (!match) throw new UsageError("--upstream-header takes 'Name: value'");
    headers[match[1]] = match[2];
  }
  return { kind: "http", url: parsed.href, headers };
}

/** The secrets a target carries: its header values (and the URL's credentials, if any). */
export function upstreamSecrets(target: UpstreamTarget): string[] {
  if (target.kind === "stdio") return [];
  const url = new URL(target.url);
  return [
    ...Object.values(target.headers).filter((value) => value.length >= 4),
    ...[url.username, url.password].filter((value) => value.length >= 4),
  ];
}

/** A safe name of the target for messages: the command's name, or the URL's origin. */
export function describeUpstream(target: UpstreamTarget): string {
  return target.kind === "stdio" ? target.command : new URL(target.url).origin;
}

/**
 * Connects to the upstream as an MCP client. The upstream's stderr passes through to ours
 * (stdout carries its frames). `setup` registers handlers before the handshake, so a
 * request the upstream sends at once (`roots/list`) finds one.
 */
export async function connectUpstream(
  target: UpstreamTarget,
  options: { capabilities?: ClientCapabilities; setup?: (client: Client) => void } = {},
): Promise<Client> {
  const client = new Client(
    { name: "syn-mcp-proxy", version: VERSION },
    { capabilities: options.capabilities ?? {} },
  );
  options.setup?.(client);
  const transport = target.kind === "stdio"
    ? new StdioClientTransport({
      command: target.command,
      args: target.args,
      cwd: target.cwd,
      env: target.env,
      stderr: "inherit",
    })
    : new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
    });
  await client.connect(transport);
  return client;
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
