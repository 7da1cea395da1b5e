/**
 * `fs.write_text`'s write, done by the supervisor through descriptors: every folder on the
 * way is opened, its real path read from `/proc/self/fd`, and refused unless inside the
 * root; the next step and the file itself are reached through that descriptor
 * (`/proc/self/fd/N/name`), so a folder swapped for a symlink after its check can neither
 * move the write outside the root nor leave a stray file there. Creating uses `createNew`
 * (O_EXCL, which never follows a final symlink) and a replace renames a new file over the
 * entry itself. Linux only, as the sandbox is.
 */
import { closeSync, constants, openSync } from "node:fs";
import { ToolFailure } from "./tool_failure.ts";

/** What a write did. */
export interface WriteOutcome {
  bytes: number;
  created: boolean;
}

/** Writes `data` at `relative` (a `/`-separated path below `root`, a real absolute path). */
export function writeInsideRoot(
  root: string,
  relative: string,
  data: Uint8Array,
  overwrite: boolean,
): WriteOutcome {
  const parts = relative.split("/");
  const name = parts.pop() ?? "";
  if (![name, ...parts].every(isPlainName)) {
    throw new ToolFailure("path_escape", "Path leaves the sandbox root");
  }
  const opened: number[] = [];
  try {
    let folder = openFolderInside(root, root, opened);
    for (const part of parts) folder = stepInto(root, folder, part, opened);
    return writeInFolder(folder, name, data, overwrite);
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("\0");
}

/** Opens the folder at `path`, keeps its descriptor, and returns the path through it. */
function openFolderInside(root: string, path: string, opened: number[]): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTDIR") throw new ToolFailure("io_error", "A folder on the path is a file");
    throw error;
  }
  opened.push(fd);
  const real = Deno.readLinkSync(`/proc/self/fd/${fd}`);
  if (real !== root && !real.startsWith(`${root}/`)) {
    throw new ToolFailure("path_escape", "Path leaves the sandbox root");
  }
  return `/proc/self/fd/${fd}`;
}

/** Creates `part` in `folder` when missing (mkdir never follows a final symlink), then opens it. */
function stepInto(root: string, folder: string, part: string, opened: number[]): string {
  try {
    Deno.mkdirSync(`${folder}/${part}`);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  return openFolderInside(root, `${folder}/${part}`, opened);
}

function writeInFolder(
  folder: string,
  name: string,
  data: Uint8Array,
  overwrite: boolean,
): WriteOutcome {
  const target = `${folder}/${name}`;
  const existing = lstatOrUndefined(target);
  if (existing?.isSymlink) {
    throw new ToolFailure("path_escape", "Path is a symlink; it is never written through");
  }
  if (existing?.isDirectory) throw new ToolFailure("io_error", "Path is a folder");
  if (existing && !overwrite) throw new ToolFailure("exists", "File exists (pass overwrite: true)");
  if (!existing) {
    Deno.writeFileSync(target, data, { createNew: true });
    return { bytes: data.length, created: true };
  }
  // Write beside, then rename: a reader never sees half a file, and rename replaces the
  // entry itself, never what it might point to.
  const temporary = `${folder}/.syn-write-${crypto.randomUUID()}.tmp`;
  try {
    Deno.writeFileSync(temporary, data, { createNew: true });
    Deno.renameSync(temporary, target);
  } catch (error) {
    try {
      Deno.removeSync(temporary);
    } catch {
      // never created
    }
    throw error;
  }
  return { bytes: data.length, created: false };
}

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
