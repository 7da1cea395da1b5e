import { resolve } from "node:path";
import type { CliIo } from "./io.ts";

/** The state folder: --state-dir, else SYN_STATE_DIR, else .syn/ in the current folder. */
export function stateDirectory(io: CliIo, flag: string | undefined): string {
  return resolve(io.cwd, flag || io.env("SYN_STATE_DIR") || ".syn");
}
