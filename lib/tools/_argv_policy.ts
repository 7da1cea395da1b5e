import { basenameOf, joinPath } from "../core/mod.ts";
import { resolveInRoot } from "./resolve_in_root.ts";
import { ToolFailure } from "./tool_failure.ts";
import { longOption, OPTION_TABLES, type OptionTable, shortOption } from "./_option_tables.ts";
import { isRefusedProgramName, PROGRAM_RUNNING_OPTIONS } from "./_shell_policy.ts";

/** Where allowlisted programs are looked up — never the caller's PATH. */
export const SHELL_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * GNU tail's obsolete option (`parse_obsolete_option` in coreutils' tail.c): a sign, a
 * count, a unit (`b`, `c` or `l`), then `f` to follow forever — `-f`, `-cf`, `-5cf`, `+5f`,
 * `+bf`. Getopt would read `-cf` as `-c f`; tail reads it first as this form (with one file
 * operand at most), so any word of this shape is refused wherever it stands.
 */
const TAIL_OBSOLETE_FOLLOW = /^[-+]\d*[bcl]?f$/;

/** How `resolveProgram` looks a program up. */
export interface ResolveProgramOptions {
  /** Whether the program will run inside bubblewrap: only then may it lack an option table. */
  bubblewrap: boolean;
  /** Folders to look in, `PATH`-style (default `SHELL_PATH`; tests give their own). */
  searchPath?: string;
}

/**
 * The absolute path of an allowlisted program, or a `ToolFailure`. `argv0` must be a bare
 * name on `allow`, found in the search path, and be what it is called: neither its name
 * nor its real file's name of a refused family (`isRefusedProgramName`: `python3.11`, a
 * symlink `view` → `vim.basic`), not the same file as a refused program under another
 * name (a hard link), and not a script (its `#!` interpreter would run). A program without
 * an option table (one added with `--shell-allow`) runs only inside bubblewrap: its
 * options cannot be read, so no path check can see what they reach.
 */
export async function resolveProgram(
  argv0: string,
  allow: readonly string[],
  options: ResolveProgramOptions,
): Promise<string> {
  if (argv0.includes("/")) {
    throw new ToolFailure("not_allowed", `Give the program by name, not by path: ${argv0}`);
  }
  if (isRefusedProgramName(argv0)) throw neverAllowed(argv0);
  if (!allow.includes(argv0)) {
    throw new ToolFailure(
      "not_allowed",
      `${argv0} is not on the shell allowlist (${allow.join(" ")})`,
    );
  }
  const searchPath = options.searchPath ?? SHELL_PATH;
  const path = await findExecutable(argv0, searchPath);
  const real = await Deno.realPath(path);
  if (isRefusedProgramName(basenameOf(real))) throw neverAllowed(argv0, basenameOf(real));
  const sameFile = await refusedHardLink(real, searchPath);
  if (sameFile !== undefined) throw neverAllowed(argv0, sameFile);
  if (await isScript(real)) {
    throw new ToolFailure(
      "not_allowed",
      `${argv0} is a script: the interpreter its #! line names would run; it is never allowed`,
    );
  }
  if (!options.bubblewrap && !Object.hasOwn(OPTION_TABLES, argv0)) {
    throw new ToolFailure(
      "not_allowed",
      `${argv0} can run only inside bubblewrap: syn has no table of its options to check its arguments by (install bubblewrap: apt-get install bubblewrap)`,
    );
  }
  return path;
}

function neverAllowed(argv0: string, realName?: string): ToolFailure {
  const what = realName === undefined ? argv0 : `${argv0} is ${realName}, which`;
  return new ToolFailure(
    "not_allowed",
    `${what} interprets code or starts other programs; it is never allowed`,
  );
}

/** The first regular executable file named `name` in the folders of `searchPath`. */
async function findExecutable(name: string, searchPath: string): Promise<string> {
  for (const folder of searchPath.split(":")) {
    const path = joinPath(folder, name);
    try {
      const info = await Deno.stat(path);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return path;
    } catch {
      // not in this folder
    }
  }
  throw new ToolFailure("not_found", `${name} is not installed here`);
}

/** A file's identity: its device and inode (hard links share it). */
function fileKey(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}`;
}

/**
 * The refused program `real` is a hard link of, if any. A file with one link has no other
 * name, and needs no search (every default program here has one).
 */
async function refusedHardLink(real: string, searchPath: string): Promise<string | undefined> {
  const info = await Deno.stat(real);
  if (info.nlink !== null && info.nlink <= 1) return undefined;
  return (await refusedFiles(searchPath)).get(fileKey(info));
}

const refusedFilesBySearchPath = new Map<string, Promise<Map<string, string>>>();

/**
 * The identities of the files in the search path whose names are of a refused family,
 * each with its name, listed once per process and search path: a program that is one of
 * them under another name (a hard link) is refused by what it is.
 */
function refusedFiles(searchPath: string): Promise<Map<string, string>> {
  let found = refusedFilesBySearchPath.get(searchPath);
  if (!found) {
    found = listRefusedFiles(searchPath);
    refusedFilesBySearchPath.set(searchPath, found);
  }
  return found;
}

function listRefusedFiles(searchPath: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  // Synchronous, once per process and only for a program with several links: ~1,100
  // names and ~320 lookups in /usr/bin, tens of ms.
  for (const folder of searchPath.split(":")) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch {
      continue; // a folder that is not there
    }
    for (const entry of entries) {
      if (!isRefusedProgramName(entry.name)) continue;
      try {
        const key = fileKey(Deno.statSync(joinPath(folder, entry.name)));
        if (!files.has(key)) files.set(key, entry.name);
      } catch {
        // a dangling link
      }
    }
  }
  return Promise.resolve(files);
}

/**
 * True when the file starts with `#!`: the kernel runs the interpreter it names. A file
 * syn cannot read is no script an interpreter could read either.
 */
async function isScript(path: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return false;
  }
  try {
    const head = new Uint8Array(2);
    const read = await file.read(head);
    return read === 2 && head[0] === 0x23 && head[1] === 0x21;
  } finally {
    file.close();
  }
}

/**
 * Checks the arguments of `program` the way its own getopt_long would read them: every
 * long option (any unambiguous prefix, with `=value` or the next word as its value) and
 * every short option (also inside clusters such as `-fn`, whose value may be the rest of
 * the cluster or the next word) must be in the program's table and not refused; an
 * unknown or ambiguous option is refused. Every other word — operands, option values,
 * everything after `--` — must resolve by real path inside `root` (`-` is standard
 * input, which is empty). A program without a table gets the generic checks only.
 */
export async function checkArguments(
  program: string,
  args: readonly string[],
  root: string,
): Promise<void> {
  const table = Object.hasOwn(OPTION_TABLES, program) ? OPTION_TABLES[program] : undefined;
  let options = true;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    let value: string | undefined = arg;
    if (program === "tail" && TAIL_OBSOLETE_FOLLOW.test(arg)) throw refusedOption(program, arg);
    if (options && arg === "--") {
      options = false;
      continue;
    }
    if (options && arg.startsWith("--")) {
      const option = checkLong(program, table, arg.slice(2));
      value = option.value ?? (option.takesNext ? args[++index] : undefined);
    } else if (options && arg.startsWith("-") && arg.length > 1) {
      const option = table ? checkShortCluster(program, table, arg.slice(1)) : {};
      value = option.value ?? (option.takesNext ? args[++index] : undefined);
    }
    if (value !== undefined) await checkPath(value, root);
  }
}

interface ParsedOption {
  /** The value given inside the same word (`--opt=value`, `-n5`). */
  value?: string;
  /** True when the option's value is the next word. */
  takesNext?: boolean;
}

function checkLong(program: string, table: OptionTable | undefined, word: string): ParsedOption {
  const equals = word.indexOf("=");
  const given = equals < 0 ? word : word.slice(0, equals);
  const value = equals < 0 ? undefined : word.slice(equals + 1);
  if (!table) {
    if (given === "" || PROGRAM_RUNNING_OPTIONS.some((name) => name.startsWith(given))) {
      throw refusedOption(program, `--${given}`);
    }
    return { value };
  }
  const option = longOption(table, given);
  if (option === undefined || option === "ambiguous") {
    throw new ToolFailure(
      "not_allowed",
      `${program} --${given.slice(0, 100)} is ${
        option ?? "unknown"
      }: only ${program}'s own options are allowed, each named unambiguously`,
    );
  }
  if (table.refused.includes(option.name) || PROGRAM_RUNNING_OPTIONS.includes(option.name)) {
    throw refusedOption(program, `--${option.name}`);
  }
  if (option.value === "none" && value !== undefined) {
    throw new ToolFailure("not_allowed", `${program} --${option.name} takes no value`);
  }
  return { value, takesNext: option.value === "required" && value === undefined };
}

function checkShortCluster(program: string, table: OptionTable, letters: string): ParsedOption {
  for (let at = 0; at < letters.length; at++) {
    const letter = letters[at];
    const kind = shortOption(table.short, letter);
    if (kind === undefined) {
      throw new ToolFailure("not_allowed", `${program} -${letter} is not one of its options`);
    }
    if (table.refused.includes(letter)) throw refusedOption(program, `-${letter}`);
    if (kind === "none") continue;
    const rest = letters.slice(at + 1);
    if (rest !== "") return { value: rest };
    return { takesNext: kind === "required" };
  }
  return {};
}

function refusedOption(program: string, option: string): ToolFailure {
  return new ToolFailure(
    "not_allowed",
    `${program} ${
      option.slice(0, 100)
    } is not allowed: it can reach outside the sandbox, change the system or never end`,
  );
}

/** Any word might be a file name to the program: it must resolve inside the root. */
async function checkPath(word: string, root: string): Promise<void> {
  if (word === "" || word === "-") return;
  try {
    await resolveInRoot(root, word, { allowMissing: true });
  } catch (error) {
    if (error instanceof ToolFailure && error.code === "path_escape") {
      throw new ToolFailure(
        "path_escape",
        `Argument leaves the sandbox root: ${word.slice(0, 200)}`,
      );
    }
    throw error;
  }
}
