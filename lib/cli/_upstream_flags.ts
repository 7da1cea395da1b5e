import { UsageError } from "../core/mod.ts";
import { type UpstreamTarget, upstreamTargetOf } from "../proxy/mod.ts";

/** The flags that name an upstream. */
export interface UpstreamFlags {
  "upstream-url"?: string;
  "upstream-header"?: string[];
  /** `Name=ENV_NAME`: the header's value is read from that environment variable. */
  "upstream-header-env"?: string[];
}

/**
 * The upstream the flags name: `--upstream-url URL` (with `--upstream-header 'Name: value'`
 * and `--upstream-header-env 'Name=ENV_NAME'`, both repeatable) or the command after `--`.
 * Neither, both, or headers for a command are bad usage; a bad value is the proxy's
 * `invalid_option`, which `runCli` words with its flag.
 */
export function upstreamFromFlags(
  flags: UpstreamFlags,
  command: readonly string[],
  options: { environment?: Readonly<Record<string, string>> } = {},
): UpstreamTarget {
  const url = flags["upstream-url"];
  if (url !== undefined && command.length) {
    throw new UsageError("give the upstream as --upstream-url URL or after --, not both");
  }
  if (url !== undefined) {
    return upstreamTargetOf({
      url,
      headers: flags["upstream-header"],
      headerVariables: flags["upstream-header-env"],
    }, options);
  }
  if (!command.length) {
    throw new UsageError("name the upstream: -- <command> [args…], or --upstream-url URL");
  }
  if (flags["upstream-header"]?.length || flags["upstream-header-env"]?.length) {
    throw new UsageError("--upstream-header and --upstream-header-env go with --upstream-url");
  }
  return upstreamTargetOf({ command }, options);
}
