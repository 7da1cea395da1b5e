import { neutralizeTerminalText, readStreamCapped, resolvePath, UsageError } from "../core/mod.ts";
import { type UpstreamTarget, upstreamTargetOf } from "../proxy/mod.ts";

/** The flags that name an upstream. */
export interface UpstreamFlags {
  "upstream-url"?: string;
  "upstream-header"?: string[];
  /** `Name=ENV_NAME`: the header's value is read from that environment variable. */
  "upstream-header-env"?: string[];
  /** Files of 'Name: value' lines, readable by their owner alone. */
  "upstream-header-file"?: string[];
}

/**
 * The upstream the flags name: `--upstream-url URL` (with `--upstream-header 'Name: value'`,
 * `--upstream-header-env 'Name=ENV_NAME'` and `--upstream-header-file FILE`, all
 * repeatable) or the command after `--`. Neither, both, or headers for a command are bad
 * usage; a bad value is the proxy's `invalid_option`, which `runCli` words with its flag.
 * `mcp-proxy` and `synthesize validate --execute --upstream-url` read them alike.
 */
export async function upstreamFromFlags(
  flags: UpstreamFlags,
  command: readonly string[],
  options: { environment?: Readonly<Record<string, string>>; cwd: string },
): Promise<UpstreamTarget> {
  const headerFlags = ["upstream-header", "upstream-header-env", "upstream-header-file"] as const;
  if (flags["upstream-url"] === undefined && headerFlags.some((name) => flags[name]?.length)) {
    throw new UsageError(
      "--upstream-header, --upstream-header-env and --upstream-header-file go with --upstream-url",
    );
  }
  const fileHeaders: string[] = [];
  for (const file of flags["upstream-header-file"] ?? []) {
    fileHeaders.push(...await headersFromFile(resolvePath(options.cwd, file), file));
  }
  return upstreamOf(
    { ...flags, "upstream-header": [...flags["upstream-header"] ?? [], ...fileHeaders] },
    command,
    options,
  );
}

function upstreamOf(
  flags: UpstreamFlags,
  command: readonly string[],
  options: { environment?: Readonly<Record<string, string>> },
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
  // Headers without --upstream-url were refused by upstreamFromFlags.
  return upstreamTargetOf({ command }, options);
}

/** The most bytes of an `--upstream-header-file`. */
const MAX_HEADER_FILE_BYTES = 64 * 1024;

/**
 * `--upstream-header-file FILE`: its 'Name: value' lines (blank lines and `#` comments
 * skipped). The file holds secrets: one that others may read (any group or other
 * permission bit) is refused, as ssh refuses a private key.
 */
async function headersFromFile(path: string, shown: string): Promise<string[]> {
  const named = neutralizeTerminalText(shown);
  // One open file is checked and read: what is read is what was checked.
  const file = await Deno.open(path).catch(() => undefined);
  if (!file) throw new UsageError(`--upstream-header-file: no such file: ${named}`);
  try {
    const info = await file.stat();
    if (!info.isFile) throw new UsageError(`--upstream-header-file: no such file: ${named}`);
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new UsageError(
        `--upstream-header-file: ${named} may be read by others (mode ${
          (info.mode & 0o777).toString(8)
        }): chmod 600 it`,
      );
    }
    const bytes = await readStreamCapped(file, {
      maxBytes: MAX_HEADER_FILE_BYTES,
      tooLarge: () =>
        new UsageError(`--upstream-header-file: ${named} is over ${MAX_HEADER_FILE_BYTES} bytes`),
    });
    return new TextDecoder().decode(bytes).split(/\r?\n/).map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
  } finally {
    file.close();
  }
}
