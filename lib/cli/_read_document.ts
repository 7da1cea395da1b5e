import {
  type ByteSource,
  errorMessage,
  formatBytes,
  parseJson,
  readStreamCapped,
  resolvePath,
  SynError,
} from "../core/mod.ts";
import type { CliIo } from "./io.ts";

/** How a command reads one JSON document. */
export interface ReadDocumentOptions {
  /** The name used in messages for standard input (`-` or `<stdin>`). */
  stdinName: string;
  /** Bytes read at most: the cap applies while reading, before anything is parsed. */
  maxBytes: number;
}

/**
 * Reads and parses one JSON document named on the command line: a file (relative to
 * `io.cwd`) or `-` for standard input. The bytes are read in chunks and refused as soon as
 * they pass `maxBytes`, so a pipe or `/dev/zero` cannot fill memory. The text must be UTF-8
 * (RFC 8259 §8.1); a leading byte order mark is ignored. Every failure is a `SynError`
 * whose message names the input: code `io_error` (`file not found: a.json`), or
 * `parse_error` (`a.json:3:7: invalid JSON: …`).
 */
export async function readDocument(
  io: CliIo,
  name: string,
  options: ReadDocumentOptions,
): Promise<unknown> {
  const source = name === "-" ? options.stdinName : name;
  const bytes = name === "-"
    ? await readCapped(io.stdin, source, options.maxBytes)
    : await readFileCapped(resolvePath(io.cwd, name), name, options.maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SynError("io_error", `not valid UTF-8 text: ${source}`, { source });
  }
  return parseJson(text, source);
}

/**
 * The bytes of a file (or a pipe, or a device), refused with a `SynError` as soon as there
 * are more than `maxBytes`: a size checked up front would not hold for a pipe or `/dev/zero`.
 */
export async function readFileCapped(
  path: string,
  name: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const failure = (error: unknown) =>
    error instanceof SynError
      ? error
      : new SynError("io_error", `${readProblem(error)}: ${name}`, { source: name });
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    throw failure(error);
  }
  try {
    // Opening a folder succeeds on Linux; reading it would fail with a vaguer message.
    if ((await file.stat()).isDirectory) throw new Deno.errors.IsADirectory();
    // Through the file itself, not `file.readable`: no stream to load.
    return await readCapped(file, name, maxBytes);
  } catch (error) {
    throw failure(error);
  } finally {
    file.close();
  }
}

/** Short reasons for the common failures; the system's own words otherwise. */
export function readProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "file not found";
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable
  ) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "not a file";
  return `cannot read (${errorMessage(error)})`;
}

/** All bytes of a stream, or a `SynError` as soon as there are more than `maxBytes`. */
function readCapped(
  stream: ReadableStream<Uint8Array> | ByteSource,
  source: string,
  maxBytes: number,
): Promise<Uint8Array> {
  return readStreamCapped(stream, { maxBytes, tooLarge: () => tooLarge(source, maxBytes) });
}

function tooLarge(source: string, maxBytes: number): SynError {
  return new SynError("io_error", `input is larger than ${formatBytes(maxBytes)}: ${source}`, {
    source,
    limit: maxBytes,
  });
}
