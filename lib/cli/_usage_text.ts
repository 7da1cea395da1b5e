import { SynError, UsageError } from "../core/mod.ts";

/**
 * Capability error codes that mean the command was asked for what it cannot do as asked:
 * like a `UsageError`, exit 2 with a one-line hint. Capabilities name their settings, never
 * flags: a bad setting is `invalid_option` with the setting in `data.option` (or several in
 * `data.options`), named as its flag is without the dashes; the CLI puts the flags before
 * the message — `--engine: the engine is one of …: hal`.
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  "invalid_option",
  "no_events", // an empty event store where events are needed
]);

/** The hint `runCli` prints for bad usage, or `undefined` for any other error. */
export function usageText(error: unknown): string | undefined {
  if (error instanceof UsageError) return error.message;
  if (!(error instanceof SynError) || !USAGE_CODES.has(error.code)) return undefined;
  if (error.code !== "invalid_option") return error.message;
  const { option, options } = error.data;
  const names = Array.isArray(options) ? options : [option];
  const flags = names.filter((name) => typeof name === "string").map((name) => `--${name}`);
  return flags.length ? `${flags.join(", ")}: ${error.message}` : error.message;
}
