import { basename, join } from "node:path";
import { resolveInRoot } from "./resolve_in_root.ts";
import { ToolFailure } from "./tool_failure.ts";

/** The programs `shell.exec` may start by default (the list). */
export const DEFAULT_SHELL_ALLOW: readonly string[] = Object.freeze([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "sort",
  "uniq",
  "cut",
  "tr",
  "echo",
  "pwd",
  "date",
]);

/**
 * Programs that interpret code, start other programs, reach the network or change
 * identity: refused even when someone adds them with `--shell-allow`, because once
 * running they are a shell by another name.
 */
export const REFUSED_PROGRAMS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "busybox",
  "toybox",
  "python",
  "python2",
  "python3",
  "perl",
  "ruby",
  "node",
  "nodejs",
  "deno",
  "bun",
  "php",
  "lua",
  "luajit",
  "tclsh",
  "wish",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "ed",
  "jq",
  "env",
  "xargs",
  "find",
  "nice",
  "nohup",
  "timeout",
  "setsid",
  "stdbuf",
  "sudo",
  "su",
  "doas",
  "chroot",
  "unshare",
  "nsenter",
  "bwrap",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "curl",
  "wget",
  "telnet",
  "ftp",
  "eval",
  "exec",
  "command",
  "builtin",
  "time",
  "strace",
  "ltrace",
  "gdb",
  "vi",
  "vim",
  "nvim",
  "emacs",
  "nano",
  "less",
  "more",
  "man",
  "git",
  "make",
  "gcc",
  "cc",
  "g++",
  "clang",
  "ld",
  "tar",
  "watch",
  "script",
  "expect",
  "flock",
  "parallel",
  "systemd-run",
  "at",
  "batch",
  "crontab",
  "dd",
  "tee",
  "install",
  "ln",
  "chmod",
  "chown",
  "kill",
  "pkill",
  "killall",
  "openssl",
  "sqlite3",
  "psql",
  "osascript",
]);

/** Where allowlisted programs are looked up — never the caller's PATH. */
export const SHELL_PATH = "/usr/local/bin:/usr/bin:/bin";

interface FlagRules {
  /** Short option letters refused anywhere in a cluster (`-rn` has `r`). */
  short?: string;
  /** Long options refused (with or without `=value`). */
  long?: readonly string[];
}

/** Options that read other files, follow links, recurse, write, hang or run programs. */
const FLAG_RULES: Readonly<Record<string, FlagRules>> = {
  grep: {
    short: "rRfd",
    long: [
      "--recursive",
      "--dereference-recursive",
      "--file",
      "--directories",
      "--devices",
      "--exclude-from",
      "--include-dir",
    ],
  },
  sort: {
    short: "oT",
    long: [
      "--output",
      "--temporary-directory",
      "--compress-program",
      "--files0-from",
      "--random-source",
    ],
  },
  tail: { short: "fF", long: ["--follow", "--retry", "--pid"] },
  date: { short: "fsr", long: ["--file", "--set", "--reference"] },
  ls: { short: "L", long: ["--dereference"] },
  wc: { long: ["--files0-from"] },
  cut: {},
  head: {},
  cat: {},
  uniq: {},
  tr: {},
  echo: {},
  pwd: {},
};

/** Refused for every program: they read file lists or start programs. */
const ALWAYS_REFUSED_LONG = ["--files0-from", "--compress-program"];

/**
 * The absolute path of an allowlisted program, or a `ToolFailure`. `argv0` must be a bare
 * name on `allow`, not refused, found in `SHELL_PATH`, and its real file must not be a
 * refused program under another name (a symlink `view` → `vim`).
 */
export async function resolveProgram(argv0: string, allow: readonly string[]): Promise<string> {
  if (argv0.includes("/")) {
    throw new ToolFailure("not_allowed", `Give the program by name, not by path: ${argv0}`);
  }
  if (REFUSED_PROGRAMS.has(argv0)) {
    throw new ToolFailure(
      "not_allowed",
      `${argv0} interprets code or starts other programs; it is never allowed`,
    );
  }
  if (!allow.includes(argv0)) {
    throw new ToolFailure(
      "not_allowed",
      `${argv0} is not on the shell allowlist (${allow.join(" ")})`,
    );
  }
  for (const folder of SHELL_PATH.split(":")) {
    const path = join(folder, argv0);
    try {
      const info = await Deno.stat(path);
      if (!info.isFile || ((info.mode ?? 0) & 0o111) === 0) continue;
      const real = await Deno.realPath(path);
      if (REFUSED_PROGRAMS.has(basename(real))) {
        throw new ToolFailure(
          "not_allowed",
          `${argv0} is ${basename(real)}, which is never allowed`,
        );
      }
      return path;
    } catch (error) {
      if (error instanceof ToolFailure) throw error;
    }
  }
  throw new ToolFailure("not_found", `${argv0} is not installed here`);
}

/**
 * Checks the arguments of `program`: refused options (per program and for all), and every
 * path-like argument — anything that is not an option, the value of `--opt=value`, and
 * everything after `--` — resolved by real path inside `root`. Returns the argv unchanged.
 */
export async function checkArguments(
  program: string,
  args: readonly string[],
  root: string,
): Promise<void> {
  const rules = FLAG_RULES[program] ?? {};
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") {
      options = false;
      continue;
    }
    if (options && arg.startsWith("--")) {
      const [name, value] = splitLong(arg);
      if (
        ALWAYS_REFUSED_LONG.includes(name) ||
        rules.long?.some((refused) =>
          refused === name || (name.length >= 4 && refused.startsWith(name))
        )
      ) {
        throw new ToolFailure(
          "not_allowed",
          `${program} ${name} is not allowed: it can reach outside the sandbox or never end`,
        );
      }
      if (value !== undefined) await checkPath(value, root);
      continue;
    }
    if (options && arg.startsWith("-") && arg.length > 1) {
      const letters = arg.slice(1);
      for (const letter of letters) {
        if (rules.short?.includes(letter)) {
          throw new ToolFailure(
            "not_allowed",
            `${program} -${letter} is not allowed: it can reach outside the sandbox or never end`,
          );
        }
      }
      continue;
    }
    await checkPath(arg, root);
  }
}

function splitLong(arg: string): [string, string | undefined] {
  const equals = arg.indexOf("=");
  return equals < 0 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
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
