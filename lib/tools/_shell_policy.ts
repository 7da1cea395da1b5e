/**
 * What `shell.exec` may start and what it keeps: the default allowlist, the programs
 * refused even when allowlisted, and its bounds. Data only, shared by the tool's
 * descriptor (`shell_exec.ts`) and its checks and run (`_shell_exec_run.ts`).
 */

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
 * Programs that interpret code, start other programs, reach the network, change identity or
 * scheduling, or edit and page (with a way to run a command): refused even when someone
 * adds them with `--shell-allow`, because once running they are a shell by another name.
 * Each entry names a family: it matches the program's name and its real file's name with
 * any version or variant suffix (`python3.11`, `perl5.36.0`, `tclsh8.6`, `vim.basic`,
 * `gcc-12`) and as a part of a longer name (`x86_64-linux-gnu-gcc-12`, `idle-python3.11`);
 * see `isRefusedProgramName`.
 */
export const REFUSED_PROGRAMS: ReadonlySet<string> = new Set([
  // shells and shell-likes
  ...["sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "mksh", "pdksh", "yash", "fish"],
  ...["csh", "tcsh", "rc", "es", "elvish", "nu", "xonsh", "pwsh", "busybox", "toybox"],
  // interpreters and language runtimes
  ...["python", "pypy", "ipython", "pydoc", "idle", "perl", "perldoc", "cpan", "ruby", "irb"],
  ...["erb", "gem", "node", "nodejs", "npm", "npx", "deno", "bun", "php", "lua", "luajit"],
  ...["tclsh", "wish", "expect", "awk", "gawk", "mawk", "nawk", "sed", "ed", "ex", "jq", "yq"],
  ...["xq", "m4", "gm4", "dc", "bc", "guile", "racket", "sbcl", "clisp", "ecl", "gst", "julia"],
  ...["r", "rscript", "octave", "java", "jshell", "jrunscript", "scala", "groovy", "kotlin"],
  ...["erl", "escript", "elixir", "iex", "ghc", "ghci", "runghc", "runhaskell", "ocaml"],
  ...["swipl", "gforth", "pike", "qjs", "gjs", "rhino", "osascript", "cscript", "wscript"],
  ...["pip", "pipx", "uv", "conda", "cargo", "go", "rustc", "dotnet", "mono"],
  // compilers, linkers, build tools
  ...["gcc", "cc", "c++", "g++", "clang", "clang++", "tcc", "ld", "as", "cpp", "make", "gmake"],
  ...["cmake", "ninja", "meson", "scons", "ant", "mvn", "gradle", "bazel", "javac"],
  // programs that start other programs
  ...["env", "xargs", "find", "nice", "nohup", "timeout", "setsid", "stdbuf", "flock"],
  ...["taskset", "setarch", "linux32", "linux64", "i386", "x86_64", "uname26", "chrt"],
  ...["ionice", "prlimit", "setpriv", "runcon", "numactl", "cgexec", "chroot", "unshare"],
  ...["nsenter", "bwrap", "firejail", "fakeroot", "fakechroot", "proot", "capsh", "runuser"],
  ...["sudo", "su", "sg", "newgrp", "doas", "pkexec", "systemd", "dbus", "xvfb", "run-parts"],
  ...["start-stop-daemon", "watch", "script", "screen", "tmux", "parallel", "at", "batch"],
  ...["crontab", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "catchsegv", "ldd"],
  ...["time", "eval", "exec", "command", "builtin", "entr", "xdg", "sensible", "editor"],
  ...["pager", "view", "www-browser", "x-www-browser", "ip", "tc", "docker", "podman"],
  ...["kubectl", "lxc", "runc", "crun", "ctr", "nerdctl", "apt", "apt-get", "dpkg", "snap"],
  ...["flatpak", "brew", "yarn", "pnpm", "xterm", "x-terminal-emulator", "login", "xinit"],
  ...["startx", "run-one", "chpst", "softlimit", "envdir", "setuidgid", "setlock", "daemonize"],
  ...["faketime", "proxychains", "proxychains4", "torsocks", "tsocks", "rlwrap", "schedtool"],
  ...["cpulimit", "trickle", "nocache", "pee", "ifne", "mispipe", "lckdo", "zrun", "chronic"],
  ...["luit", "zutty", "scriptlive", "gprofng", "gp", "msgexec", "msgfilter", "not", "vgdb"],
  ...["peekfd", "pldd", "jdb", "jexec", "jcmd", "jhsdb", "jpackage", "jconsole", "javadoc"],
  ...["gio", "gapplication", "gtk", "gdbus", "busctl", "systemctl", "journalctl", "udevadm"],
  ...["pkcon", "pkttyagent", "update-alternatives", "mandb", "catman", "cscope", "scalar"],
  // interpreters and code loaders of toolchains: LLVM's (`lli`, `opt -load`), ctags' own
  ...["llvm", "lli", "opt", "llc", "bugpoint", "optscript", "rpcgen", "soelim", "xrdb"],
  // editors, pagers and viewers that can run a command
  ...["vi", "vim", "rvim", "nvim", "gvim", "evim", "vimdiff", "rview", "nvi", "elvis", "vile"],
  ...["emacs", "emacsclient", "zile", "mg", "jed", "joe", "nano", "pico", "micro", "mc"],
  ...["mcedit", "kak", "hx", "less", "more", "most", "pg", "man", "info", "pinfo", "lynx"],
  ...["links", "elinks", "w3m", "mutt", "mail", "mailx", "s-nail", "groff", "troff", "nroff"],
  ...["tex", "latex", "pdflatex", "lualatex", "xelatex", "luatex", "pdftex", "gs", "magick"],
  ...["convert", "patch", "gpg", "gpg2", "tcpdump", "nmap", "zip", "cpio", "tar", "diff3"],
  ...["sdiff"],
  // network
  ...["ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "curl", "wget"],
  ...["telnet", "ftp", "tftp", "lftp", "aria2c", "ping", "ping6", "traceroute", "dig"],
  ...["nslookup", "host", "whois", "git", "svn", "hg", "bzr", "ffmpeg", "openssl"],
  ...["gpgconf", "gpgtar", "gpgsm", "dirmngr", "gcloud", "gke", "kpt", "anthoscli", "cbt"],
  ...["jstatd", "rmiregistry", "broadwayd", "xhost", "xauth"],
  // identity, processes and the system
  ...["dd", "tee", "install", "ln", "chmod", "chown", "chgrp", "kill", "pkill", "killall"],
  ...["sqlite3", "psql", "mysql", "mariadb", "redis-cli", "mongo", "mongosh"],
  ...["mount", "umount", "write", "wall", "chfn", "chsh", "passwd", "gpasswd", "chage"],
  ...["skill", "snice", "renice", "xkill", "choom", "uclampset", "link", "sessreg"],
]);

/**
 * True when `name` (a program's name or its real file's) is of a refused family: the
 * name itself, the name without a version suffix, or any of its `-`/`.`/`_`-separated
 * parts with or without trailing digits is in `REFUSED_PROGRAMS` (`python3.11` → `python`,
 * `vim.basic` → `vim`, `x86_64-linux-gnu-g++-12` → `g++`). Written without regular
 * expressions: every name in the search folders goes through it once, and compiling
 * those cost a cold process three times the scan (measured: ~17 ms against ~6 ms).
 */
export function isRefusedProgramName(name: string): boolean {
  const lower = name.toLowerCase();
  if (REFUSED_PROGRAMS.has(lower) || REFUSED_PROGRAMS.has(withoutVersion(lower))) return true;
  let start = 0;
  for (let at = 0; at <= lower.length; at++) {
    if (at < lower.length && !isSeparator(lower[at])) continue;
    const part = lower.slice(start, at);
    if (REFUSED_PROGRAMS.has(part) || REFUSED_PROGRAMS.has(withoutTrailingDigits(part))) {
      return true;
    }
    start = at + 1;
  }
  return false;
}

function isSeparator(char: string): boolean {
  return char === "-" || char === "." || char === "_" || char === "~";
}

function isDigit(char: string): boolean {
  return char >= "0" && char <= "9";
}

function withoutTrailingDigits(text: string): string {
  let end = text.length;
  while (end > 0 && isDigit(text[end - 1])) end--;
  return text.slice(0, end);
}

/** `python3.11` → `python`, `gcc-12` → `gcc`: trailing digits and dots, and one separator. */
function withoutVersion(text: string): string {
  let end = text.length;
  while (end > 0 && (isDigit(text[end - 1]) || text[end - 1] === ".")) end--;
  if (end > 0 && end < text.length && isSeparator(text[end - 1])) end--;
  return text.slice(0, end);
}

/**
 * Long options that make a program start another one (`split --filter=CMD` runs
 * `/bin/sh -c CMD`, `sort --compress-program`, `tar --to-command`, `diff3 --diff-program`)
 * or read a list of files the argv never names: refused for every program, with or
 * without an option table, and by every prefix getopt would expand to them where the
 * program has no table.
 */
export const PROGRAM_RUNNING_OPTIONS: readonly string[] = Object.freeze([
  "filter",
  "compress-program",
  "use-compress-program",
  "to-command",
  "info-script",
  "new-volume-script",
  "rsh-command",
  "checkpoint-action",
  "diff-program",
  "exec",
  "command",
  "shell",
  "pager",
  "editor",
  "files0-from",
]);

/** Output kept per stream (stdout, stderr); more sets `truncated` and stops the program. */
export const MAX_SHELL_OUTPUT_BYTES = 64 * 1024;
/** `timeout_s` bounds. */
export const MAX_SHELL_TIMEOUT_S = 300;
/** What the worker adds to a program's own deadline before the sandbox is recycled. */
export const SPAWN_GRACE_MS = 1000;
