import { ToolFailure } from "./tool_failure.ts";

/** Where bubblewrap is looked for when no search path is given. */
export const BWRAP_PATHS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

const detected = new Map<string, Promise<string | undefined>>();

/** The folders allowlisted programs need, bound read-only (their symlinks kept as symlinks). */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin"];

/**
 * The path of a bubblewrap that really isolates here (it runs `true` in a fresh
 * namespace set once per process and search path), or `undefined`. `searchPath` is a
 * `PATH`-style list of folders (the caller's `PATH`); without one, `BWRAP_PATHS`.
 * Containers without user namespaces make bwrap fail; then `shell.exec` is refused unless
 * the user opted in to run it on its argv checks alone (`shellWithoutBubblewrap`).
 */
export function bubblewrapPath(searchPath?: string): Promise<string | undefined> {
  const candidates = searchPath === undefined
    ? BWRAP_PATHS
    : searchPath.split(":").filter((folder) => folder.startsWith("/")).map((folder) =>
      `${folder.replace(/\/+$/, "")}/bwrap`
    );
  const key = JSON.stringify(candidates);
  let found = detected.get(key);
  if (!found) detected.set(key, found = probe(candidates));
  return found;
}

async function probe(candidates: readonly string[]): Promise<string | undefined> {
  for (const path of candidates) {
    try {
      if (!(await Deno.stat(path)).isFile) continue;
      const argv = await bubblewrapArgv(path, "/", ["/bin/true"]);
      const { success } = await new Deno.Command(argv[0], {
        args: argv.slice(1),
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      if (success) return path;
    } catch {
      // not here, or not usable
    }
  }
  return undefined;
}

/**
 * The argv that runs `command` (argv[0] absolute) inside bubblewrap: every namespace
 * unshared (no network, own pids — killing bwrap ends everything inside), only the
 * system folders read-only, the sandbox root read-write at its own path, a minimal
 * /dev, no /etc, /home, /root, /tmp or /proc, an empty environment but PATH and LANG.
 */
export async function bubblewrapArgv(
  bwrap: string,
  root: string,
  command: readonly string[],
): Promise<string[]> {
  if (!command[0]?.startsWith("/")) {
    throw new ToolFailure("invalid_args", "bubblewrap needs an absolute program path");
  }
  const argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"];
  for (const folder of SYSTEM_FOLDERS) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(folder);
    } catch {
      continue;
    }
    if (info.isSymlink) argv.push("--symlink", await Deno.readLink(folder), folder);
    else if (info.isDirectory) argv.push("--ro-bind", folder, folder);
  }
  argv.push("--dev", "/dev");
  if (root !== "/") argv.push("--bind", root, root);
  argv.push(
    "--chdir",
    root,
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/bin:/bin",
    "--setenv",
    "LANG",
    "C.UTF-8",
  );
  argv.push("--", ...command);
  return argv;
}
