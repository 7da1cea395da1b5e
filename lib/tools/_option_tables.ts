/**
 * The command-line options of each default `shell.exec` program, and of two harmless ones
 * a user may add (`sleep`, `printenv`), as GNU coreutils 9 and GNU grep 3 declare them
 * (`<program> --help`). Without bubblewrap, only a program with a table here can run: one
 * that writes files under names the argv does not spell (`split` writes `xaa`, which may
 * be a symlink out of the root) or runs commands has none. GNU getopt_long accepts any unambiguous
 * prefix of a long option (`--f` is `--files0-from` for `wc`), so a long option is
 * matched the same way against the whole table: an exact name wins, otherwise the prefix
 * must name exactly one option. An unknown or ambiguous option is refused.
 */

/** How an option takes its value: none, always (`=v` or the next word), or only as `=v`. */
export type OptionValue = "none" | "required" | "optional";

/** One program's options. `refused` options read other files, recurse, write, hang or set state. */
export interface OptionTable {
  /** getopt's short option string: a letter, `:` after it when it takes a value, `::` optional. */
  short: string;
  /** Long option names: suffix `=` when they take a value, `==` when it is optional. */
  long: readonly string[];
  /** Names (long, without `--`) and letters (short) that are never allowed. */
  refused: readonly string[];
}

const COMMON = ["help", "version"];

export const OPTION_TABLES: Readonly<Record<string, OptionTable>> = {
  ls: {
    short: "abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1",
    long: [
      ...COMMON,
      "all",
      "almost-all",
      "author",
      "block-size=",
      "classify==",
      "color==",
      "context",
      "dereference",
      "dereference-command-line",
      "dereference-command-line-symlink-to-dir",
      "directory",
      "dired",
      "escape",
      "file-type",
      "format=",
      "full-time",
      "group-directories-first",
      "hide-control-chars",
      "hide=",
      "human-readable",
      "hyperlink==",
      "ignore-backups",
      "ignore=",
      "indicator-style=",
      "inode",
      "kibibytes",
      "literal",
      "no-group",
      "numeric-uid-gid",
      "quote-name",
      "quoting-style=",
      "recursive",
      "reverse",
      "show-control-chars",
      "si",
      "size",
      "sort=",
      "tabsize=",
      "time=",
      "time-style=",
      "width=",
      "zero",
    ],
    refused: ["dereference", "L"],
  },
  cat: {
    short: "benstuvAET",
    long: [
      ...COMMON,
      "number",
      "number-nonblank",
      "show-all",
      "show-ends",
      "show-nonprinting",
      "show-tabs",
      "squeeze-blank",
    ],
    refused: [],
  },
  head: {
    short: "c:n:qvz0123456789",
    long: [...COMMON, "bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated"],
    refused: [],
  },
  tail: {
    short: "c:n:fFqs:vz0123456789",
    long: [
      ...COMMON,
      "bytes=",
      "follow==",
      "lines=",
      "max-unchanged-stats=",
      "pid=",
      "quiet",
      "retry",
      "silent",
      "sleep-interval=",
      "verbose",
      "zero-terminated",
    ],
    refused: ["follow", "retry", "pid", "f", "F"],
  },
  wc: {
    short: "clLmw",
    long: [...COMMON, "bytes", "chars", "files0-from=", "lines", "max-line-length", "words"],
    refused: ["files0-from"],
  },
  grep: {
    short: "0123456789A:B:C:D:EFGHIJLNOPTUVX:abcd:e:f:hiLlm:noqRrsuvwxyZz",
    long: [
      ...COMMON,
      "after-context=",
      "basic-regexp",
      "before-context=",
      "binary",
      "binary-files=",
      "byte-offset",
      "color==",
      "colour==",
      "context=",
      "count",
      "dereference-recursive",
      "devices=",
      "directories=",
      "exclude-dir=",
      "exclude-from=",
      "exclude=",
      "extended-regexp",
      "file=",
      "files-with-matches",
      "files-without-match",
      "fixed-strings",
      "group-separator=",
      "ignore-case",
      "include=",
      "initial-tab",
      "invert-match",
      "label=",
      "line-buffered",
      "line-number",
      "line-regexp",
      "max-count=",
      "no-filename",
      "no-group-separator",
      "no-ignore-case",
      "no-messages",
      "null",
      "null-data",
      "only-matching",
      "perl-regexp",
      "quiet",
      "recursive",
      "regexp=",
      "silent",
      "text",
      "with-filename",
      "word-regexp",
    ],
    refused: [
      "dereference-recursive",
      "devices",
      "directories",
      "exclude-from",
      "file",
      "recursive",
      "r",
      "R",
      "f",
      "d",
      "D",
      "X",
    ],
  },
  sort: {
    short: "bcCdfghik:mMno:rRsS:t:T:uVy:z",
    long: [
      ...COMMON,
      "batch-size=",
      "buffer-size=",
      "check==",
      "compress-program=",
      "debug",
      "dictionary-order",
      "field-separator=",
      "files0-from=",
      "general-numeric-sort",
      "human-numeric-sort",
      "ignore-case",
      "ignore-leading-blanks",
      "ignore-nonprinting",
      "key=",
      "merge",
      "month-sort",
      "numeric-sort",
      "output=",
      "parallel=",
      "random-sort",
      "random-source=",
      "reverse",
      "sort=",
      "stable",
      "temporary-directory=",
      "unique",
      "version-sort",
      "zero-terminated",
    ],
    refused: [
      "compress-program",
      "files0-from",
      "output",
      "random-source",
      "temporary-directory",
      "o",
      "T",
    ],
  },
  uniq: {
    short: "0123456789Dcdf:is:uw:z",
    long: [
      ...COMMON,
      "all-repeated==",
      "check-chars=",
      "count",
      "group==",
      "ignore-case",
      "repeated",
      "skip-chars=",
      "skip-fields=",
      "unique",
      "zero-terminated",
    ],
    refused: [],
  },
  cut: {
    short: "b:c:d:f:nsz",
    long: [
      ...COMMON,
      "bytes=",
      "characters=",
      "complement",
      "delimiter=",
      "fields=",
      "only-delimited",
      "output-delimiter=",
      "zero-terminated",
    ],
    refused: [],
  },
  tr: {
    short: "AcCdst",
    long: [...COMMON, "complement", "delete", "squeeze-repeats", "truncate-set1"],
    refused: [],
  },
  date: {
    short: "d:f:I::r:Rs:u",
    long: [
      ...COMMON,
      "date=",
      "debug",
      "file=",
      "iso-8601==",
      "reference=",
      "resolution",
      "rfc-3339=",
      "rfc-email",
      "rfc-2822",
      "set=",
      "universal",
      "utc",
      "uct",
    ],
    refused: ["file", "reference", "set", "f", "r", "s"],
  },
  pwd: { short: "LP", long: [...COMMON, "logical", "physical"], refused: [] },
  // GNU echo reads only leading -n/-e/-E clusters (anything else it prints); the table
  // is stricter: any other option is refused.
  echo: { short: "neE", long: COMMON, refused: [] },
  sleep: { short: "", long: COMMON, refused: [] },
  printenv: { short: "0", long: [...COMMON, "null"], refused: [] },
};

/** The value kind of short option `letter` in getopt string `short`, or undefined if unknown. */
export function shortOption(short: string, letter: string): OptionValue | undefined {
  const at = short.indexOf(letter);
  if (at < 0 || letter === ":") return undefined;
  if (short.startsWith("::", at + 1)) return "optional";
  return short[at + 1] === ":" ? "required" : "none";
}

/**
 * The long option `given` (without `--`) names in `table`, as getopt_long resolves it: the
 * exact name, else the one option it is a prefix of. Undefined when unknown; the string
 * "ambiguous" when it is a prefix of several.
 */
export function longOption(
  table: OptionTable,
  given: string,
): { name: string; value: OptionValue } | "ambiguous" | undefined {
  const options = table.long.map((entry) => {
    const name = entry.replace(/=+$/, "");
    const equals = entry.length - name.length;
    return { name, value: equals === 0 ? "none" : equals === 1 ? "required" : "optional" } as {
      name: string;
      value: OptionValue;
    };
  });
  const exact = options.find((option) => option.name === given);
  if (exact) return exact;
  const matches = given === "" ? [] : options.filter((option) => option.name.startsWith(given));
  if (matches.length > 1) return "ambiguous";
  return matches[0];
}
