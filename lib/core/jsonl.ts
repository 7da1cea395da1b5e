/**
 * Append-only JSONL files (an edge: it touches the file system).
 *
 * Each record is serialized to one line and written with a single `write` on a file
 * opened with O_APPEND while holding an exclusive `flock`, so several processes can
 * append to the same file without torn or interleaved lines.
 */
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
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
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

/** Writes a file atomically: a temporary file beside it, then a rename. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temporary = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
