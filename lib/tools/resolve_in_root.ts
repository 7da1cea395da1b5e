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
 *
 * Synchronous: a few path lookups (microseconds each; at most one per component of a
 * path of at most 4096 characters). Their asynchronous forms each go through a thread of
 * Deno's blocking pool and back, which made a first call ~2 ms slower (docs/performance.md,
 * thirteenth round).
 */
export function resolveInRoot(root: string, input: string, options: ResolveOptions = {}): string {
  const lexical = lexicalPath(root, input);
  const existing = nearestExisting(lexical);
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
 * The deepest existing ancestor of `path` (itself included) and its real path. A
 * dangling symlink counts as existing and resolves to where it points, so nothing is
 * ever created through a link.
 */
function nearestExisting(path: string): { path: string; real: string } {
  let current = path;
  while (true) {
    try {
      return { path: current, real: Deno.realPathSync(current) };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new ToolFailure("io_error", `Cannot resolve path: ${errorName(error)}`);
      }
    }
    const link = danglingLinkTarget(current);
    if (link !== undefined) return { path: current, real: link };
    const parent = dirnameOf(current);
    if (parent === current) return { path: current, real: current };
    current = parent;
  }
}

function danglingLinkTarget(path: string): string | undefined {
  try {
    const info = Deno.lstatSync(path);
    if (!info.isSymlink) return undefined;
    const target = Deno.readLinkSync(path);
    return normalizePath(isAbsolutePath(target) ? target : joinPath(dirnameOf(path), target));
  } catch {
    return undefined;
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "error";
}
