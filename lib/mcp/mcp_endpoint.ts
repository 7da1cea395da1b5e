import { type McpSettings, SynError } from "../core/mod.ts";

/** Where the validator service is, as the configuration says. */
export type McpEndpoint =
  | { transport: "stdio"; configured: boolean }
  | { transport: "tcp"; hostname: string; port: number }
  | { transport: "socket"; path: string };

/** Who reads the settings: the server listens, the client connects. */
export type McpRole = "server" | "client";

/**
 * The validator transport from `MCP_ENDPOINT`/`MCP_HOST`/`MCP_PORT`/`MCP_SOCKET_PATH` (Labs
 * spec transport table), read the same way by `syn mcp-serve` and by the client, so one
 * configuration makes both ends meet: nothing set → stdio (`configured: false`); only
 * `MCP_HOST`/`MCP_PORT` → tcp; an unknown `MCP_ENDPOINT` → tcp with one warning. The role
 * decides one thing: port 0 means "any free port", which a server may listen on and a
 * client cannot connect to. Throws `SynError` (`validator_config`) for a configuration
 * that cannot work.
 */
export function resolveMcpEndpoint(
  settings: McpSettings,
  role: McpRole,
  options: { warn?: (message: string) => void } = {},
): McpEndpoint {
  const warn = options.warn ?? (() => {});
  let endpoint = settings.endpoint?.toLowerCase() ?? "";
  if (endpoint === "") {
    if (!settings.host && !settings.port) return { transport: "stdio", configured: false };
    endpoint = "tcp";
  } else if (endpoint !== "stdio" && endpoint !== "tcp" && endpoint !== "socket") {
    warn(
      `MCP_ENDPOINT=${JSON.stringify(settings.endpoint)} is not stdio, tcp or socket; using tcp`,
    );
    endpoint = "tcp";
  }
  if (endpoint === "stdio") return { transport: "stdio", configured: true };
  if (endpoint === "socket") {
    if (!settings.socketPath) {
      throw new SynError("validator_config", "MCP_ENDPOINT=socket needs MCP_SOCKET_PATH");
    }
    return { transport: "socket", path: settings.socketPath };
  }
  const port = mcpPort(settings.port, role);
  return { transport: "tcp", hostname: settings.host ?? "127.0.0.1", port };
}

function mcpPort(text: string | undefined, role: McpRole): number {
  if (text === undefined) {
    throw new SynError(
      "validator_config",
      "MCP_ENDPOINT=tcp needs MCP_PORT (and MCP_HOST, default 127.0.0.1), e.g. MCP_PORT=7000",
    );
  }
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (port === 0 && role === "client") {
    throw new SynError(
      "validator_config",
      "MCP_PORT=0 means any free port: a server may listen on it, a client cannot connect " +
        "to it; give the port the server listens on",
    );
  }
  if (!(port >= 0 && port <= 65535)) {
    throw new SynError("validator_config", `MCP_PORT is not a TCP port (0–65535): ${text}`);
  }
  return port;
}
