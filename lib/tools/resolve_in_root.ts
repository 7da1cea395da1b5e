import { dirnameOf, isAbsolutePath, joinPath, normalizePath, relativePath } from "../core/mod.ts";
import { ToolFailure } from "./tool_failure.ts";

/** How a path may be used. `create`: it may not exist yet (its nearest existing folder is checked). */
export interface ResolveOptions {
  allowMissing?: boolean;
}

/** True when `path` (absolute, normalized) is `root` or lies below it. */
export function isInside(root: string, path: string): boolean {
  const rel = relativePath(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolutePath(rel));
}

/**
 * The real, absolute path of `input` inside the sandbox `root` (itself a real path), or a
 * `ToolFailure`: `path_escape` for anything that leaves the root lexically (`..`, an
 * absolute path elsewhere, a sibling such as `<root>-evil`) or through a symlink that
 * already exists (Deno follows those, so its read/write scoping cannot see them),
 * `invalid_args` for a NUL byte or an empty path, `not_found` when it does not exist and
 * `allowMissing` is off. An absolute path is fine when it resolves inside the root.
 */
export async function resolveInRoot(
  root: string,
  input: string,
  options: ResolveOptions = {},
): Promise<string> {
  const lexical = lexicalPath(root, input);
  const existing = existingPath(lexical) ?? await nearestExisting(lexical);
  if (!isInside(root, existing.real)) {
    throw new ToolFailure("path_escape", `Path leaves the sandbox root: ${input}`);
  }
  if (existing.path === lexical) return existing.real;
  if (!options.allowMissing) throw new ToolFailure("not_found", `No such file or folder: ${input}`);
  return joinPath(existing.real, relativePath(existing.path, lexical));
}

/** The lexical absolute path; refuses what leaves the root before touching the disk. */
function lexicalPath(root: string, input: string): string {
  if (typeof input !== "string" || input.length === 0) {
    throw new ToolFailure("invalid_args", "Path must be a non-empty string");
  }
  if (input.includes("\0")) throw new ToolFailure("invalid_args", "Path contains a NUL byte");
  const path = normalizePath(isAbsolutePath(input) ? input : joinPath(root, input));
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  if (!isInside(root, trimmed)) {
    throw new ToolFailure("path_escape", `Path leaves the sandbox root: ${input}`);
  }
  return trimmed;
}

/**
 * `path` and its real path when it exists, by one synchronous lookup: the usual case, and
 * microseconds, where the asynchronous form goes through a thread of Deno's blocking pool
 * and back (a first call measured ~2 ms slower; docs/performance.md).
 * `undefined` when it does not exist: the walk up to an existing folder, which a path of
 * 2,000 missing components makes take thousands of lookups, stays off the event loop.
 */
function existingPath(path: string): { path: string; real: string } | undefined {
  try {
    return { path, real: Deno.realPathSync(path) };
  } catch (error) {
    return missing(error);
  }
}

/** `undefined` for a path that does not exist; any other failure is an `io_error`. */
function missing(error: unknown): undefined {
  if (error instanceof Deno.errors.NotFound) return undefined;
  throw new ToolFailure("io_error", `Cannot resolve path: ${errorName(error)}`);
}

/**
 * The deepest existing ancestor of `path`, which does not exist itself, and its real path.
 * A dangling symlink counts as existing and resolves to where it points, so nothing is
 * ever created through a link.
 */
async function nearestExisting(path: string): Promise<{ path: string; real: string }> {
  let current = path;
  while (true) {
    const link = await danglingLinkTarget(current);
    if (link !== undefined) return { path: current, real: link };
    const parent = dirnameOf(current);
    if (parent === current) return { path: current, real: current };
    current = parent;
    const real = await Deno.realPath(current).catch(missing);
    if (real !== undefined) return { path: current, real };
  }
}

async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isSymlink) return undefined;
    const target = await Deno.readLink(path);
    return normalizePath(isAbsolutePath(target) ? target : joinPath(dirnameOf(path), target));
  } catch {
    return undefined;
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "error";
}
