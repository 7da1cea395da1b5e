import { errorMessage, UsageError } from "../core/mod.ts";
import { closestName } from "./_closest_name.ts";
import { type FlagSpecs, parseFlags } from "./_parse_flags.ts";

/**
 * Strict flag parsing for a subcommand: unknown flags and missing values become a
 * `UsageError` naming the command, so the CLI prints a one-line hint and exits 2.
 * `--help`/`-h` is always accepted.
 */
export function parseCommandArgs<T extends FlagSpecs>(
  command: string,
  args: string[],
  options: T,
) {
  const specs = { ...options, help: { type: "boolean", short: "h" } as const };
  try {
    return parseFlags(joinNegativeValues(args, options), specs);
  } catch (error) {
    throw new UsageError(flagMessage(errorMessage(error), Object.keys(specs)), { command });
  }
}

/**
 * parseFlags keeps `parseArgs`'s messages ("Unknown option '--sed'. To specify …"); syn says
 * them as its other usage messages are said, with the nearest flag for a misspelled one.
 */
export function flagMessage(message: string, names: readonly string[]): string {
  const unknown = /^Unknown option '([^']*)'/.exec(message);
  if (unknown) {
    const raw = unknown[1];
    const guess = raw.startsWith("--") ? closestName(raw.slice(2), names) : undefined;
    return `unknown option '${raw}'${guess ? ` (did you mean '--${guess}'?)` : ""}`;
  }
  const missing = /^Option '(?:-\S, )?(--\S+) <value>' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value`;
  const noValue = /^Option '(?:-\S, )?(--\S+)' does not take an argument/.exec(message);
  if (noValue) return `${noValue[1]} takes no value`;
  const ambiguous = /^Option '(--\S+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    return `${ambiguous[1]} needs a value (write ${
      ambiguous[1]
    }=VALUE for one that starts with '-')`;
  }
  const sentence = firstLine(message);
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/**
 * `--seed -1`: parseFlags (as node:util parseArgs) would take `-1` for an option. A value
 * that looks like a negative number after a string option is joined to it (`--seed=-1`), as
 * users write it.
 */
function joinNegativeValues(args: string[], options: FlagSpecs): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith("--") ? args[i].slice(2) : undefined;
    const next = args[i + 1];
    if (
      name !== undefined && options[name]?.type === "string" && next !== undefined &&
      /^-(\d|\.\d)/.test(next)
    ) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else joined.push(args[i]);
  }
  return joined;
}

/** parseArgs's messages (which parseFlags keeps) run on ("… To specify a positional argument …"): keep the first sentence. */
function firstLine(text: string): string {
  return text.split("\n")[0].split(/\.\s/)[0].replace(/\.$/, "");
}

/** Parses a number flag, or throws a `UsageError` naming the flag. */
export function numberFlag(
  name: string,
  value: string | undefined,
  { integer = false, min, max }: { integer?: boolean; min?: number; max?: number } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || (integer && !Number.isInteger(parsed))) {
    throw new UsageError(`--${name} takes ${integer ? "an integer" : "a number"}: ${value}`);
  }
  if ((min !== undefined && parsed < min) || (max !== undefined && parsed > max)) {
    throw new UsageError(`--${name} must be between ${min ?? "-∞"} and ${max ?? "∞"}: ${value}`);
  }
  return parsed;
}
