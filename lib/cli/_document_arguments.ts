import { compareCodePoints, resolvePath } from "../core/mod.ts";
import type { CliIo } from "./io.ts";
import { readProblem } from "./_read_document.ts";

export interface Input {
  /** As given (`a.json`, `-`), or `folder/name` for a file found in a folder. */
  shown: string;
  /** Set when the argument could not be expanded (an unreadable folder). */
  problem?: string;
}

/** An argument as the inputs it stands for: itself, or the `*.json` files in a folder. */
export async function expandArgument(io: CliIo, argument: string): Promise<Input[]> {
  if (argument === "-") return [{ shown: "-" }];
  const path = resolvePath(io.cwd, argument);
  let info: Deno.FileInfo;
  try {
    // Synchronous, as the read that follows: see `readFileCapped`.
    info = Deno.statSync(path);
  } catch {
    return [{ shown: argument }]; // reading it names the problem
  }
  if (!info.isDirectory) return [{ shown: argument }];
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) {
      if (!entry.name.endsWith(".json")) continue;
      // A symlink counts as what it points at; a dangling one stays in, to be reported.
      const isFile = entry.isSymlink
        ? await Deno.stat(resolvePath(path, entry.name)).then((target) => target.isFile, () => true)
        : entry.isFile;
      if (isFile) names.push(entry.name);
    }
  } catch (error) {
    return [{ shown: argument, problem: `${readProblem(error)}: ${argument}` }];
  }
  names.sort(compareCodePoints);
  const prefix = argument.replace(/\/+$/, "");
  return names.map((name) => ({ shown: `${prefix}/${name}` }));
}
