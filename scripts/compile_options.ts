/**
 * What goes into the single `syn` binary: the permissions it is compiled with, the files
 * embedded beside the code, and the platforms `deno compile --target` can build for.
 * The binary smoke test runs `main.ts` with exactly these permissions, so the list is
 * checked even where no binary can be built.
 */
import { COMMAND_FILES } from "../lib/cli/mod.ts";

/**
 * Every permission. The binary needs files (assets, logs, state, the tool root), the network
 * (providers, the validator, chat and preview servers), the environment, subprocesses (its
 * own `mcp-serve` child, bubblewrap, allowlisted tools, Chromium) and system information —
 * and the tool sandbox's supervisor reads `/proc/self/fd/<fd>` to prove what a sandboxed open
 * really reached (a folder swapped for a symlink after a path check), which Deno allows only
 * to a program holding every permission (`--deny-ffi` already refuses it). The code loads no
 * FFI library and imports nothing from the network: everything is embedded; the sandboxed
 * tools run in a worker that holds only the root.
 */
export const BINARY_PERMISSIONS = ["--allow-all"] as const;

/**
 * `new URL("./x", import.meta.url)` in a module: a file or folder it loads at run time by
 * URL — a module imported by a computed specifier, a worker, a folder of data it reads —
 * which `deno compile` cannot see in the module graph.
 */
const LOADED_BY_URL = /new URL\(\s*"(\.\.?\/[^"]*)"\s*,\s*import\.meta\.url\s*\)/g;

const root = new URL("../", import.meta.url);

/** What the modules under `folder` load by URL, as paths from the root (tests left out). */
export function loadedByUrl(folder: URL): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(folder)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), folder);
    if (entry.isDirectory) {
      if (entry.name !== "testdata") found.push(...loadedByUrl(url));
    } else if (/\.ts$/.test(entry.name) && !/_test\.ts$/.test(entry.name)) {
      for (const match of Deno.readTextFileSync(url).matchAll(LOADED_BY_URL)) {
        const path = new URL(match[1], url).pathname.slice(root.pathname.length);
        found.push(path.replace(/\/$/, ""));
      }
    }
  }
  return found;
}

/** The paths, each once, without those inside another one, sorted. */
function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)].sort();
  return unique.filter((path) => !unique.some((other) => path.startsWith(`${other}/`)));
}

/**
 * Files loaded at run time by path, embedded by name: what `lib/` loads by URL (the schema
 * set, the sandbox worker, the preview page, modules imported by computed specifiers) and
 * each command's file, which the command table imports by a computed specifier.
 */
export const EMBEDDED: readonly string[] = outermost([
  ...loadedByUrl(new URL("lib/", root)),
  ...COMMAND_FILES,
]);

/** `deno compile --target` values. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-pc-windows-msvc",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
