/**
 * The chat key when `SYN_CHAT_KEY` is unset (an edge: it touches the file system): made once
 * in the user's config folder as `syn/chat.key` (folder 0700, file 0600) and read from there
 * after, so a state folder — copied, backed up, shared — never holds chat content in plain
 * text, and never holds the key that opens it.
 *
 * ```ts
 * import { openChatKeyFile } from "./chat_key_file.ts";
 * const { key, path, created } = openChatKeyFile("/home/me/.config", { stateDir: "/srv/state" });
 * ```
 */
import { dirnameOf, joinPath, relativePath, resolvePath, SynError } from "../core/mod.ts";

/** Where the key lives under the config folder. */
export const CHAT_KEY_FILE = joinPath("syn", "chat.key");
/** The fewest characters a key file may hold (a made key has 64). */
export const MIN_CHAT_KEY_CHARS = 32;
/** A key file is read only up to this size. */
const MAX_KEY_FILE_BYTES = 4096;

/** The key, its file, and whether this call made it. */
export interface ChatKeyFile {
  key: string;
  path: string;
  created: boolean;
}

/**
 * Reads `<configDir>/syn/chat.key`, making it first when it is absent (256 random bits as 64
 * hex digits). Refused, with a `chat_key` error saying what to do: no config folder, a key
 * path inside `stateDir`, a file that is not a regular file (a symlink), or one too short.
 * A wider mode is tightened to 0600.
 */
export function openChatKeyFile(
  configDir: string | undefined,
  options: { stateDir: string },
): ChatKeyFile {
  if (!configDir) {
    throw new SynError(
      "chat_key",
      "No config folder for the chat key: set SYN_CHAT_KEY, or HOME or XDG_CONFIG_HOME",
    );
  }
  const path = resolvePath(configDir, CHAT_KEY_FILE);
  const state = realPathOfNearest(resolvePath(".", options.stateDir));
  const fromState = relativePath(state, realPathOfNearest(path));
  if (fromState !== ".." && !fromState.startsWith("../") && !fromState.startsWith("/")) {
    throw new SynError(
      "chat_key",
      `The chat key would be inside the state folder (${path}): set XDG_CONFIG_HOME to a ` +
        "folder outside it, or SYN_CHAT_KEY",
      { path },
    );
  }
  const created = makeKeyFile(path);
  return { key: readKeyFile(path), path, created };
}

/** Writes a fresh key at `path` unless a file is there; whether it did. */
function makeKeyFile(path: string): boolean {
  Deno.mkdirSync(dirnameOf(path), { recursive: true, mode: 0o700 });
  tighten(dirnameOf(path), 0o700);
  if (exists(path)) return false; // the usual start: nothing to stage
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const key = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  // Written beside it and linked into place: a link never replaces a file, so two processes
  // starting at once keep one key, and a reader never sees a half-written one.
  const staged = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  Deno.writeTextFileSync(staged, `${key}\n`, { createNew: true, mode: 0o600 });
  try {
    Deno.linkSync(staged, path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  } finally {
    Deno.removeSync(staged);
  }
}

/** Whether anything (a dangling symlink too) is at `path`. */
function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function readKeyFile(path: string): string {
  const info = Deno.lstatSync(path);
  if (!info.isFile) {
    throw new SynError("chat_key", `The chat key is not a regular file: ${path}`, { path });
  }
  if (info.size > MAX_KEY_FILE_BYTES) {
    throw new SynError("chat_key", `The chat key file is too large: ${path}`, { path });
  }
  tighten(path, 0o600);
  const key = Deno.readTextFileSync(path).trim();
  const control = [...key].some((char) => char < " " || char === "\x7f");
  if (key.length < MIN_CHAT_KEY_CHARS || control) {
    throw new SynError(
      "chat_key",
      `The chat key must be one line of ${MIN_CHAT_KEY_CHARS} or more characters: ${path}`,
      { path },
    );
  }
  return key;
}

function tighten(path: string, mode: number): void {
  const info = Deno.statSync(path);
  if (info.mode !== null && (info.mode & 0o777 & ~mode) !== 0) Deno.chmodSync(path, mode);
}

/** `path` with its longest existing ancestor's symlinks resolved (the rest kept as given). */
function realPathOfNearest(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (true) {
    try {
      return joinPath(Deno.realPathSync(existing), ...rest);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const parent = dirnameOf(existing);
      if (parent === existing) return path;
      rest.unshift(existing.slice(parent.length).replace(/^\//, ""));
      existing = parent;
    }
  }
}
