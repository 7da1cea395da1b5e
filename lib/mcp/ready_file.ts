import { errorMessage, utf8ByteLength } from "../core/mod.ts";

/**
 * The ready file of the MCP adapter's process model (MCP spec §3): once a server listens it
 * writes `<pid> <ISO8601>` and a newline, then, when asked for with HTTP served, one line
 * per HTTP endpoint, `http url=<url>[ token=<token>]`; it removes the file on exit. Only a
 * stale ready file (its process gone) is ever replaced: a device, a link, a folder, a user's
 * file or a live server's file is left alone.
 */

/** Where the ready file goes when `MCP_READY_FILE` names none. */
export const DEFAULT_READY_FILE = "/tmp/mcp.ready";

/** What a ready file of ours looks like (see above). */
const READY_CONTENT = /^(\d+) \S+\n(?:http url=\S+(?: token=\S+)?\n)*$/;
/** Larger than any ready file of ours: anything bigger is someone else's. */
const MAX_READY_FILE_BYTES = 1024;

/** A ready file's content: the process and when it became ready, then the endpoint lines. */
export function readyFileContent(
  options: { pid: number; readyAt: Date; lines?: readonly string[] },
): string {
  const lines = (options.lines ?? []).join("");
  return `${options.pid} ${options.readyAt.toISOString()}\n${lines}`;
}

/** An HTTP endpoint's line in the ready file: its URL, and the token when there is one. */
export function httpReadyLine(url: string, token: string | undefined): string {
  return `http url=${url}${token === undefined ? "" : ` token=${token}`}\n`;
}

/** Options of {@linkcode claimReadyFile}. */
export interface ClaimReadyFileOptions {
  /** The path is the shared default: when it is taken, `/tmp/mcp-<pid>.ready` is used. */
  isDefault: boolean;
  /** Told why no file, or another one, was written (`mcp:warn …` lines). */
  warn: (line: string) => void;
  /** The new file's mode (default 0644; 0600 when it holds a token). */
  mode?: number;
}

/**
 * Creates the ready file and returns its path, or `undefined` (with a warning) when none
 * can be made. Only a stale ready file is replaced; with the default path taken by a live
 * server, this one gets `/tmp/mcp-<pid>.ready` instead, so two servers never share one.
 * O_CREAT|O_EXCL never follows a link planted at the path. Synchronous on purpose: the
 * server is already reading, and no request may be answered before the file exists.
 */
export function claimReadyFile(
  path: string,
  content: string,
  options: ClaimReadyFileOptions,
): string | undefined {
  const state = readyFileState(path);
  if (state === "stale") {
    try {
      Deno.removeSync(path);
    } catch {
      // gone meanwhile
    }
  }
  if (state === "free" || state === "stale") {
    try {
      Deno.writeTextFileSync(path, content, { createNew: true, mode: options.mode ?? 0o644 });
      return path;
    } catch (error) {
      options.warn(
        `mcp:warn ready_file=${JSON.stringify(path)} detail=${JSON.stringify(errorMessage(error))}`,
      );
      return undefined;
    }
  }
  const what = state === "live"
    ? "belongs to another running server"
    : "exists and is not a ready file";
  if (options.isDefault) {
    const own = `/tmp/mcp-${Deno.pid}.ready`;
    options.warn(`mcp:warn ready_file=${JSON.stringify(path)} ${what}; using ${own}`);
    return claimReadyFile(own, content, { ...options, isDefault: false });
  }
  options.warn(
    `mcp:warn ready_file=${JSON.stringify(path)} ${what}; left untouched, no ready file written`,
  );
  return undefined;
}

/** Removes the ready file unless another server has replaced it since. */
export async function releaseReadyFile(path: string, content: string): Promise<void> {
  try {
    // Only a small regular file can be ours: never read through a link, a pipe or a device.
    const info = await Deno.lstat(path);
    if (!info.isFile || info.size !== utf8ByteLength(content)) return;
    if (await Deno.readTextFile(path) === content) await Deno.remove(path);
  } catch {
    // already gone
  }
}

/** True while a process with this id exists (Linux: /proc). */
function processAlive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * What is at `path` now: nothing, a ready file of a server that is gone (ours to
 * replace), a ready file of a live server, or something else entirely — a device such as
 * /dev/null, a folder, a link, a FIFO, a user's file — which is never touched.
 */
function readyFileState(path: string): "free" | "stale" | "live" | "foreign" {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return "free";
  }
  if (!info.isFile || info.size > MAX_READY_FILE_BYTES) return "foreign";
  let text = "";
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    return "foreign";
  }
  const match = READY_CONTENT.exec(text);
  if (!match) return "foreign";
  return processAlive(Number(match[1])) ? "live" : "stale";
}
