/**
 * Writes a `syn` launcher: `deno task install [--bin DIR]`. The launcher names the Deno
 * that runs this script (`Deno.execPath()`, so it works after `npx deno` with no `deno` on
 * PATH) and this checkout's `deno.json` and `main.ts` by absolute path, so `syn` runs from
 * any folder without the network. The folder is `--bin`, else `$DENO_INSTALL_ROOT/bin`,
 * else `~/.local/bin`. Prints where it wrote the launcher and whether that folder is on
 * PATH; exits 2 on bad usage, 1 when the launcher cannot be written.
 */
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PROCESS_V8_FLAGS } from "../lib/core/v8_flags.ts";

const HELP = `deno task install [--bin DIR]

Writes DIR/syn (default $DENO_INSTALL_ROOT/bin, else ~/.local/bin), a launcher that runs
this checkout's main.ts with ${Deno.execPath()}.`;

/** Quotes `text` for a POSIX shell: single quotes, with `'` written `'\''`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The launcher's text: one `exec` of this Deno with this checkout's config and main.ts. */
export function launcherText(deno: string, root: string): string {
  const words = [
    deno,
    "run",
    "-A",
    "--unstable-worker-options",
    `--v8-flags=${PROCESS_V8_FLAGS}`,
    "--config",
    join(root, "deno.json"),
    join(root, "main.ts"),
  ].map(shellQuote);
  return `#!/bin/sh\n# syn launcher written by scripts/install.ts\nexec ${words.join(" ")} "$@"\n`;
}

/** The bin folder: `--bin`, else `$DENO_INSTALL_ROOT/bin`, else `~/.local/bin`. */
export function binFolder(flag: string | undefined, env: (name: string) => string | undefined) {
  // `deno task` runs in the repository's root; a relative --bin means the caller's folder.
  if (flag) return resolve(env("INIT_CWD") ?? ".", flag);
  const root = env("DENO_INSTALL_ROOT");
  if (root) return join(resolve(root), "bin");
  return join(env("HOME") ?? ".", ".local", "bin");
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: { bin: { type: "string" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    console.error(`install: ${error instanceof Error ? error.message : error}; see --help`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const bin = binFolder(values.bin, (name) => Deno.env.get(name));
  const root = fileURLToPath(new URL("..", import.meta.url));
  const path = join(bin, "syn");
  try {
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(path, launcherText(Deno.execPath(), root), { mode: 0o755 });
    await Deno.chmod(path, 0o755);
  } catch (error) {
    console.error(
      `install: cannot write ${path}: ${error instanceof Error ? error.message : error}`,
    );
    return 1;
  }
  const onPath = (Deno.env.get("PATH") ?? "").split(delimiter).some((dir) => resolve(dir) === bin);
  console.log(`install: wrote ${path}`);
  console.log(
    onPath
      ? `install: ${bin} is on PATH; run syn --help`
      : `install: ${bin} is not on PATH; add it (export PATH="${bin}:$PATH") or run ${path}`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main());
