/**
 * `node:util` `parseArgs` in strict mode with positionals allowed, for the options syn
 * declares (string or boolean, `multiple`, `short`), with the same results and messages.
 * Written out because `node:util` is the only flag parser the runtime offers, and the first
 * `node:` import starts Deno's Node compatibility layer: ~35 M instructions on every command,
 * most of a bare `deno run`. `_parse_flags_test.ts` holds it to `parseArgs` itself.
 */

/** How one flag is read. */
export interface FlagSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
}

/** The flags a command declares, by long name. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type FlagValue<S extends FlagSpec> = S["type"] extends "string"
  ? S["multiple"] extends true ? string[] : string
  : S["multiple"] extends true ? boolean[]
  : boolean;

/** The values of the flags given; absent flags are absent. */
export type FlagValues<T extends FlagSpecs> = { [K in keyof T]?: FlagValue<T[K]> };

/** What {@linkcode parseFlags} read. */
export interface ParsedFlags<T extends FlagSpecs> {
  values: FlagValues<T>;
  positionals: string[];
}

/** One option as written: `rawName` is `--name` or `-n`; `inline` for `--name=value`. */
interface OptionToken {
  name: string;
  rawName: string;
  value?: string;
  inline: boolean;
}

/**
 * Reads `args` as `parseArgs({ args, options, strict: true, allowPositionals: true })`
 * does. Throws `TypeError` with `parseArgs`'s message for an unknown option, a missing or
 * unexpected value, or a value that looks like an option (`--seed -1`; `--seed=-1` works).
 */
export function parseFlags<T extends FlagSpecs>(
  args: readonly string[],
  specs: T,
): ParsedFlags<T> {
  const values: Record<string, unknown> = Object.create(null);
  const positionals: string[] = [];
  const pending = [...args];
  while (pending.length) {
    const arg = pending.shift()!;
    if (arg === "--") {
      positionals.push(...pending.splice(0));
    } else if (arg.length < 2 || arg[0] !== "-") {
      positionals.push(arg);
    } else if (isShortGroup(arg, specs)) {
      pending.unshift(...splitShortGroup(arg, specs));
    } else {
      const token = optionToken(arg, specs, pending);
      checkOption(token, specs);
      storeOption(values, token, specs[token.name]);
    }
  }
  return { values: values as FlagValues<T>, positionals };
}

/** The long name a short flag stands for, or the letter itself when none does. */
function longNameOf(short: string, specs: FlagSpecs): string {
  return Object.keys(specs).find((name) => specs[name].short === short) ?? short;
}

function typeOf(name: string, specs: FlagSpecs): FlagSpec["type"] | undefined {
  return Object.hasOwn(specs, name) ? specs[name].type : undefined;
}

/** `-abc`: short flags written together, the first of them not a string flag. */
function isShortGroup(arg: string, specs: FlagSpecs): boolean {
  return arg[1] !== "-" && arg.length > 2 && typeOf(longNameOf(arg[1], specs), specs) !== "string";
}

/** `-abc` as `-a -b -c`; a string flag takes the rest as its value (`-abfFILE` → `-a -b -fFILE`). */
function splitShortGroup(arg: string, specs: FlagSpecs): string[] {
  const expanded: string[] = [];
  for (let index = 1; index < arg.length; index++) {
    const isString = typeOf(longNameOf(arg[index], specs), specs) === "string";
    if (!isString || index === arg.length - 1) expanded.push(`-${arg[index]}`);
    else {
      expanded.push(`-${arg.slice(index)}`);
      break;
    }
  }
  return expanded;
}

/** One option, taking the next argument as a string flag's value when there is one. */
function optionToken(arg: string, specs: FlagSpecs, pending: string[]): OptionToken {
  if (arg[1] !== "-" && arg.length > 2) {
    // `-fFILE`: a short string flag and its value.
    const name = longNameOf(arg[1], specs);
    return { name, rawName: arg.slice(0, 2), value: arg.slice(2), inline: true };
  }
  const equals = arg.indexOf("=", 3);
  if (arg[1] === "-" && equals >= 0) {
    const value = arg.slice(equals + 1);
    return { name: arg.slice(2, equals), rawName: arg.slice(0, equals), value, inline: true };
  }
  const name = arg[1] === "-" ? arg.slice(2) : longNameOf(arg[1], specs);
  const takesValue = typeOf(name, specs) === "string" && pending.length > 0;
  return { name, rawName: arg, value: takesValue ? pending.shift() : undefined, inline: false };
}

/** `parseArgs`'s strict checks, in its order and with its messages. */
function checkOption(token: OptionToken, specs: FlagSpecs): void {
  const type = typeOf(token.name, specs);
  if (type === undefined) {
    throw new TypeError(
      `Unknown option '${token.rawName}'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- ${
        JSON.stringify(token.rawName)
      }`,
    );
  }
  const short = specs[token.name].short;
  const shortAndLong = `${short ? `-${short}, ` : ""}--${token.name}`;
  if (type === "string" && token.value === undefined) {
    throw new TypeError(`Option '${shortAndLong} <value>' argument missing`);
  }
  if (type === "boolean" && token.value !== undefined) {
    throw new TypeError(`Option '${shortAndLong}' does not take an argument`);
  }
  if (
    !token.inline && token.value !== undefined && token.value.length > 1 && token.value[0] === "-"
  ) {
    const example = token.rawName.startsWith("--")
      ? `'${token.rawName}=-XYZ'`
      : `'--${token.name}=-XYZ' or '${token.rawName}-XYZ'`;
    throw new TypeError(
      `Option '${token.rawName}' argument is ambiguous.\nDid you forget to specify the option argument for '${token.rawName}'?\nTo specify an option argument starting with a dash use ${example}.`,
    );
  }
}

function storeOption(values: Record<string, unknown>, token: OptionToken, spec: FlagSpec): void {
  if (token.name === "__proto__") return;
  const value = token.value ?? true;
  if (!spec.multiple) values[token.name] = value;
  else ((values[token.name] ??= []) as unknown[]).push(value);
}
