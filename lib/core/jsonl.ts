/**
 * Append-only JSONL files (an edge: it touches the file system).
 *
 * Each record is serialized to one line and written with a single `write` on a file
 * opened with O_APPEND while holding an exclusive `flock`, so several processes can
 * append to the same file without torn or interleaved lines.
 */
import { writeAll } from "./write_all.ts";

export async function appendJsonl(path: string, record: unknown): Promise<void> {
  await appendJsonlLines(path, [record]);
}

/** Appends several records under one lock, in order. */
export async function appendJsonlLines(path: string, records: readonly unknown[]): Promise<void> {
  if (records.length === 0) return;
  let text = "";
  for (const record of records) {
    const line = JSON.stringify(record);
    if (line === undefined) throw new TypeError("A JSONL record must be a JSON value");
    text += line + "\n";
  }
  const bytes = new TextEncoder().encode(text);
  using file = await Deno.open(path, { append: true, create: true });
  await file.lock(true);
  try {
    await writeAll(file, bytes);
  } finally {
    await file.unlock();
  }
}

/** Reads every record of a JSONL file; a line that does not parse throws, naming the line. */
export async function readJsonl(path: string): Promise<unknown[]> {
  const text = await Deno.readTextFile(path);
  const records: unknown[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      throw new SyntaxError(`${path}:${index + 1}: not a JSON line: ${(error as Error).message}`);
    }
  }
  return records;
}

/**
 * Writes a file atomically: a temporary file beside it, then a rename. `mode` applies to
 * the new file (a private state file passes 0o600).
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { mode?: number } = {},
): Promise<void> {
  const staged = await stageFile(path, text, options);
  await staged.commit();
}

/** A file written beside its destination, not yet in place. */
export interface StagedFile {
  /** Renames it into place (atomic); removes the temporary if that fails. */
  commit(): Promise<void>;
  /** Removes the temporary. */
  discard(): Promise<void>;
}

/** Temporary names: `<file>.<pid>.<random>.tmp`, so a sweep can tell whose they are. */
const TEMPORARY = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Writes `text` to a temporary file beside `path` and returns how to put it in place, so a
 * caller can record what it is about to publish first (a log record before the file a
 * reader sees). A process killed in between leaves only a temporary, which
 * `sweepTemporaries` removes later.
 */
export async function stageFile(
  path: string,
  text: string,
  options: { mode?: number } = {},
): Promise<StagedFile> {
  const temporary = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const discard = () => Deno.remove(temporary).catch(() => {});
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: options.mode });
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    async commit() {
      try {
        await Deno.rename(temporary, path);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}

/**
 * Removes the temporaries of writers that are gone (their process no longer exists) from
 * `folder`; a live writer's are kept. Returns how many were removed.
 */
export async function sweepTemporaries(folder: string): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(folder)) {
      const match = entry.isFile ? TEMPORARY.exec(entry.name) : null;
      if (!match || processExists(Number(match[1]))) continue;
      await Deno.remove(`${folder}/${entry.name}`).then(() => removed++, () => {});
    }
  } catch {
    // no folder yet: nothing to sweep
  }
  return removed;
}

function processExists(pid: number): boolean {
  if (pid === Deno.pid) return true;
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}
