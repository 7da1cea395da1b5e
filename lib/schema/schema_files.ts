/**
 * Reading the schema and example folders: `*.json` files, a symlink followed only to a file
 * inside its folder, each file size-capped. Separate from the store (`_schema_store.ts`),
 * which loads when a store is first asked for: reading a folder's files (the embedded set
 * for a schema walk, the build scripts) needs none of it.
 */
import { compareCodePoints, errorMessage, fileUrlToPath, joinPath, SynError } from "../core/mod.ts";

/** A schema file as read from disk. */
export interface SchemaFileText {
  name: string;
  text: string;
}

// fileUrlToPath, not `.pathname`: a checkout under "My Projects" is "My%20Projects" in a URL.
export const EMBEDDED_SCHEMAS = fileUrlToPath(new URL("../../schemas/", import.meta.url));
export const EMBEDDED_EXAMPLES = fileUrlToPath(new URL("../../schemas/examples/", import.meta.url));

// Discovery reads a handful of small files once, at start: synchronous calls, because each
// asynchronous one is a trip to the runtime's blocking thread pool and back (about a third
// of a validator child's discovery time when they were asynchronous).

function readDirectory(path: string): Deno.DirEntry[] | undefined {
  try {
    const entries = [...Deno.readDirSync(path)];
    return entries.sort((a, b) => compareCodePoints(a.name, b.name));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw new SynError("io_error", `Cannot read folder ${path}: ${errorMessage(error)}`, { path });
  }
}

/** The real path of a folder, or `undefined` when there is none (missing: empty listings). */
function realFolder(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether an entry is a file. A symlink counts as what it points at when that lies inside
 * `root` (the real path of the folder given): a link planted in a schema or example folder
 * must not serve a file from elsewhere to every client. Folders are not followed.
 */
function isFileEntry(dir: string, entry: Deno.DirEntry, root: string): boolean {
  if (!entry.isSymlink) return entry.isFile;
  try {
    const target = Deno.realPathSync(joinPath(dir, entry.name));
    if (!target.startsWith(root.endsWith("/") ? root : `${root}/`)) return false;
    return Deno.statSync(target).isFile;
  } catch {
    return false; // a broken link holds no schema
  }
}

/** A schema or example file larger than this is refused before it is read. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** The text of a regular file (the callers check that), refused over `MAX_FILE_BYTES`. */
function readText(path: string): string {
  let size: number;
  try {
    size = Deno.statSync(path).size;
  } catch (error) {
    throw new SynError("io_error", `Cannot read ${path}: ${errorMessage(error)}`, { path });
  }
  if (size > MAX_FILE_BYTES) {
    throw new SynError("io_error", `Cannot read ${path}: larger than 16 MiB`, { path, size });
  }
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    throw new SynError("io_error", `Cannot read ${path}: ${errorMessage(error)}`, { path });
  }
}

/** The `*.json` files directly in a schema folder, sorted by name; `[]` when it is missing. */
export function readSchemaFiles(dir: string): SchemaFileText[] {
  const entries = readDirectory(dir) ?? [];
  const root = realFolder(dir) ?? dir;
  const files: SchemaFileText[] = [];
  for (const entry of entries) {
    if (!entry.name.endsWith(".json") || !isFileEntry(dir, entry, root)) continue;
    files.push({ name: entry.name, text: readText(joinPath(dir, entry.name)) });
  }
  return files;
}

/** Every `*.json` under a folder, recursively, as `/`-separated relative paths, sorted. */
export function readExampleFiles(
  dir: string,
  prefix = "",
  root?: string,
): SchemaFileText[] {
  root ??= realFolder(dir) ?? dir;
  const folder = joinPath(dir, prefix);
  const entries = readDirectory(folder) ?? [];
  const files: SchemaFileText[] = [];
  for (const entry of entries) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) files.push(...readExampleFiles(dir, relative, root));
    else if (entry.name.endsWith(".json") && isFileEntry(folder, entry, root)) {
      files.push({ name: relative, text: readText(joinPath(dir, relative)) });
    }
  }
  return files;
}
