/**
 * Writes a `syn` launcher: `deno task install [--bin DIR]`. The launcher names the Deno
 * that runs this script (`Deno.execPath()`, so it works after `npx deno` with no `deno` on
 * PATH) and this checkout's `deno.json` and `main.ts` by absolute path, so `syn` runs from
 * any folder without the network. It pins the Deno cache the install ran with (`DENO_DIR`,
 * else Deno's default): an MCP client that starts `syn` with a minimal environment still
 * finds every npm package there. A Deno inside npm's `npx` cache is named only while it
 * exists — a cache clean removes it — and the launcher then runs the same version through
 * `npx`. The folder is `--bin`, else `$DENO_INSTALL_ROOT/bin`, else `~/.local/bin`. Prints
 * where it wrote the launcher and whether that folder is on PATH; exits 2 on bad usage, 1
 * when the launcher cannot be written.
 */
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const HELP = `deno task install [--bin DIR]

Writes DIR/syn (default $DENO_INSTALL_ROOT/bin, else ~/.local/bin), a launcher that runs
this checkout's main.ts with ${Deno.execPath()}
and the Deno cache this install uses (DENO_DIR, unless the caller sets another).`;

/** Quotes `text` for a POSIX shell: single quotes, with `'` written `'\''`. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** What the launcher pins: the Deno binary, its version and the Deno cache folder. */
export interface LauncherOptions {
  deno: string;
  version: string;
  denoDir: string;
}

/** Whether `path` lies in npm's `npx` cache (`~/.npm/_npx/<hash>/…`), which a cache clean empties. */
export function inNpxCache(path: string): boolean {
  return /[\\/]_npx[\\/]/.test(path);
}

/**
 * The launcher's text: one `exec` of this Deno with this checkout's config and main.ts, with
 * `DENO_DIR` defaulting to the cache the install used. A Deno from the `npx` cache is used
 * while it is there, else `npx -y deno@VERSION` runs the same version.
 */
export function launcherText(root: string, options: LauncherOptions): string {
  const args = [
    "run",
    "-A",
    "--unstable-worker-options",
    "--config",
    join(root, "deno.json"),
    join(root, "main.ts"),
  ].map(shellQuote).join(" ");
  const head = [
    "#!/bin/sh",
    "# syn launcher written by scripts/install.ts",
    `[ -n "\${DENO_DIR:-}" ] || DENO_DIR=${shellQuote(options.denoDir)}`,
    "export DENO_DIR",
  ];
  if (!inNpxCache(options.deno)) {
    return [...head, `exec ${shellQuote(options.deno)} ${args} "$@"`, ""].join("\n");
  }
  return [
    ...head,
    `deno=${shellQuote(options.deno)}`,
    `[ -x "$deno" ] && exec "$deno" ${args} "$@"`,
    `exec npx -y --prefer-offline ${shellQuote(`deno@${options.version}`)} ${args} "$@"`,
    "",
  ].join("\n");
}

/**
 * The Deno cache this Deno uses: `DENO_DIR` when set, else what `deno info --json` reports
 * (Deno's default for this user and platform).
 */
export async function currentDenoDir(
  deno: string,
  env: (name: string) => string | undefined,
): Promise<string> {
  const explicit = env("DENO_DIR");
  if (explicit) return resolve(explicit);
  const output = await new Deno.Command(deno, {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const denoDir = output.success ? JSON.parse(new TextDecoder().decode(output.stdout)).denoDir : "";
  if (typeof denoDir !== "string" || denoDir === "") {
    throw new Error("cannot tell which Deno cache this Deno uses (deno info --json)");
  }
  return denoDir;
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
  const env = (name: string) => Deno.env.get(name);
  try {
    const deno = Deno.execPath();
    const denoDir = await currentDenoDir(deno, env);
    const text = launcherText(root, { deno, version: Deno.version.deno, denoDir });
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(path, text, { mode: 0o755 });
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
