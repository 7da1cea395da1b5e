import type * as NodePath from "node:path";
import type * as NodeUrl from "node:url";

/**
 * File paths as `node:path` and `node:url` give them, without importing either on POSIX:
 * the runtime has no path API of its own, and the first `node:` import starts Deno's Node
 * compatibility layer (~35 M instructions, most of a bare start) on commands that need
 * nothing else from it. On Windows (drive letters, UNC paths) Node's own functions answer,
 * loaded at the first call. `file_path_test.ts` holds these to `node:path` and `node:url`.
 */
const WINDOWS = Deno.build.os === "windows";

function nodePath(): typeof NodePath {
  return globalThis.process.getBuiltinModule("node:path");
}

function nodeUrl(): typeof NodeUrl {
  return globalThis.process.getBuiltinModule("node:url");
}

/** `path.resolve(base, path)`: `path` against the folder `base`, normalized, no trailing `/`. */
export function resolvePath(base: string, path: string): string {
  if (WINDOWS) return nodePath().resolve(base, path);
  let combined = path.startsWith("/") ? path : `${base}/${path}`;
  if (!combined.startsWith("/")) combined = `${Deno.cwd()}/${combined}`;
  const parts: string[] = [];
  for (const part of combined.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "" && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** `path.dirname(path)`: what precedes the last `/` that is not trailing, as Node cuts it. */
export function dirnameOf(path: string): string {
  if (WINDOWS) return nodePath().dirname(path);
  let end = -1;
  let trailing = true;
  for (let index = path.length - 1; index >= 1; index--) {
    if (path[index] !== "/") trailing = false;
    else if (!trailing) {
      end = index;
      break;
    }
  }
  const rooted = path.startsWith("/");
  if (end === -1) return rooted ? "/" : ".";
  return rooted && end === 1 ? "//" : path.slice(0, end);
}

/** `path.normalize(path)`: `.` and `..` resolved lexically, `/` runs collapsed; "" is ".". */
export function normalizePath(path: string): string {
  if (WINDOWS) return nodePath().normalize(path);
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else if (!rooted) parts.push("..");
  }
  let joined = parts.join("/");
  if (rooted) joined = `/${joined}`;
  else if (joined === "") joined = ".";
  const trailing = path.endsWith("/") && joined !== "/";
  return trailing ? `${joined}/` : joined;
}

/** `path.join(...parts)`: the non-empty parts joined by `/`, normalized; nothing is ".". */
export function joinPath(...parts: string[]): string {
  if (WINDOWS) return nodePath().join(...parts);
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : normalizePath(joined);
}

/** `path.isAbsolute(path)`. */
export function isAbsolutePath(path: string): boolean {
  return WINDOWS ? nodePath().isAbsolute(path) : path.startsWith("/");
}

/** `path.relative(from, to)`: the way from one to the other, both resolved first; same is "". */
export function relativePath(from: string, to: string): string {
  if (WINDOWS) return nodePath().relative(from, to);
  const cwd = Deno.cwd();
  const source = resolvePath(cwd, from).split("/").filter(Boolean);
  const target = resolvePath(cwd, to).split("/").filter(Boolean);
  let common = 0;
  while (
    common < source.length && common < target.length && source[common] === target[common]
  ) common++;
  const up = source.slice(common).map(() => "..");
  return [...up, ...target.slice(common)].join("/");
}

/** `path.basename(path)`: the last part, trailing `/` ignored. */
export function basenameOf(path: string): string {
  if (WINDOWS) return nodePath().basename(path);
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  const start = path.lastIndexOf("/", end - 1) + 1;
  return path.slice(start, end);
}

/** `path.extname(path)`: the last part's end from its last `.`; "" for a name starting there. */
export function extnameOf(path: string): string {
  if (WINDOWS) return nodePath().extname(path);
  const base = basenameOf(path);
  const dot = base.lastIndexOf(".");
  return dot <= 0 || base === ".." ? "" : base.slice(dot);
}

/** `url.fileURLToPath(url)`: the path of a `file:` URL, percent-escapes decoded. */
export function fileUrlToPath(url: URL): string {
  if (WINDOWS || url.protocol !== "file:" || url.hostname !== "") {
    return nodeUrl().fileURLToPath(url);
  }
  if (/%2f/i.test(url.pathname)) return nodeUrl().fileURLToPath(url); // Node refuses it
  return decodeURIComponent(url.pathname);
}

/** `url.pathToFileURL(path)`: an absolute path as a `file:` URL (relative: against the cwd). */
export function pathToFileUrl(path: string): URL {
  if (WINDOWS) return nodeUrl().pathToFileURL(path);
  const absolute = resolvePath(Deno.cwd(), path) + (path.endsWith("/") && path !== "/" ? "/" : "");
  const url = new URL("file:///");
  // As Node: `%`, `\`, newline, carriage return and tab are escaped before the URL's own
  // rules escape the rest (`#`, `?`, spaces, non-ASCII).
  url.pathname = absolute.replaceAll("%", "%25").replaceAll("\\", "%5C").replaceAll("\n", "%0A")
    .replaceAll("\r", "%0D").replaceAll("\t", "%09");
  return url;
}
