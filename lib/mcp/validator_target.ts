import { ShellWordsError, splitShellWords, type SynConfig, SynError } from "../core/mod.ts";
import { resolveMcpEndpoint } from "./mcp_endpoint.ts";

/** What the client reads of the configuration: the transport, and what its child gets. */
export type ValidatorConfig = Pick<
  SynConfig,
  "mcp" | "schemasDir" | "examplesDir" | "backend" | "system"
>;

/** How {@linkcode resolveValidatorTarget} resolved the environment. */
export type ValidatorTarget =
  | { transport: "stdio"; command: string[]; own: boolean }
  | { transport: "tcp"; hostname: string; port: number }
  | { transport: "socket"; path: string };

/**
 * Resolves the validator transport from the configuration, as the server reads it
 * (`resolveMcpEndpoint`, client role). Nothing configured (no `MCP_ENDPOINT`, `MCP_HOST`
 * or `MCP_PORT`), or stdio without `MCP_ADAPTER_CMD` → our own `mcp-serve --stdio` as a
 * child. `SYN_SCHEMAS_DIR` (deprecated by the Labs spec) draws one warning: ignored for tcp
 * and socket, forwarded to a stdio child. Throws `SynError` with code `validator_config` for a configuration that cannot
 * work (tcp without a port or on port 0, socket without a path, an `MCP_ADAPTER_CMD` that
 * is not one plain command).
 */
export function resolveValidatorTarget(
  config: Pick<ValidatorConfig, "mcp" | "schemasDir" | "examplesDir">,
  selfCommand: readonly string[],
  options: { warn?: (line: string) => void } = {},
): ValidatorTarget {
  const warn = options.warn ?? (() => {});
  const own = { transport: "stdio" as const, command: [...selfCommand, "mcp-serve", "--stdio"] };
  const target = resolveMcpEndpoint(config.mcp, "client", {
    warn: (line) => warn(`validator: ${line}`),
  });
  if (target.transport !== "stdio") {
    const deprecated = { SYN_SCHEMAS_DIR: config.schemasDir, SYN_EXAMPLES_DIR: config.examplesDir };
    for (const [name, value] of Object.entries(deprecated)) {
      if (value) {
        warn(
          `validator: ${name} is deprecated and ignored for ${target.transport}; configure the server's schemas instead`,
        );
      }
    }
    return target;
  }
  const adapter = target.configured ? config.mcp.adapterCommand : undefined;
  const resolved = adapter === undefined
    ? { ...own, own: true }
    : { transport: "stdio" as const, command: adapterCommand(adapter), own: false };
  // Labs spec: SYN_SCHEMAS_DIR is deprecated (stdio only); "warn once when forwarded". A
  // command opens one validator connection, so this is one line per run.
  if (config.schemasDir) {
    warn(
      "validator: SYN_SCHEMAS_DIR is deprecated; forwarded to the stdio validator child this time (configure the validator's schemas instead)",
    );
  }
  return resolved;
}

/** `MCP_ADAPTER_CMD` as argv, split by syn's one shell-word splitter. */
function adapterCommand(line: string): string[] {
  try {
    return splitShellWords(line, "MCP_ADAPTER_CMD");
  } catch (error) {
    if (!(error instanceof ShellWordsError)) throw error;
    throw new SynError("validator_config", error.message);
  }
}
