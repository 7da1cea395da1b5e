import { resolvePath } from "../core/mod.ts";
import type { CliIo } from "./io.ts";

/** The state folder of `tools` and `synthesize` when none is named: `.syn/` here. */
export const DEFAULT_STATE_DIR = ".syn";

/**
 * The state folder the user named, absolute: `--state-dir`, else `SYN_STATE_DIR`; an
 * empty value names none. `syn chat` saves nothing without one.
 */
export function chosenStateDirectory(io: CliIo, flag: string | undefined): string | undefined {
  const chosen = flag?.trim() || io.config.stateDir;
  return chosen ? resolvePath(io.cwd, chosen) : undefined;
}

/** The state folder of `tools` and `synthesize`: the one named, else `.syn/` here. */
export function stateDirectory(io: CliIo, flag: string | undefined): string {
  return chosenStateDirectory(io, flag) ?? resolvePath(io.cwd, DEFAULT_STATE_DIR);
}
