import {
  compareCodePoints,
  ensurePrivateDirSync,
  joinPath,
  SynError,
  writeAll,
} from "../core/mod.ts";
import { assertSessionId, type Checkpoint, checkpointFromJson } from "./checkpoint.ts";
import { decryptText, encryptText } from "./_at_rest.ts";

/** Checkpoints above this size are refused before parsing. */
const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;

/**
 * Checkpoints on disk, one file per session: `<stateDir>/sessions/<id>/checkpoint.json`.
 * Every write bumps `revision` by one and is atomic — a temporary file beside it,
 * fsync, rename, fsync of the folder — so a `kill -9` at any moment leaves the previous
 * or the next checkpoint, never a torn one. With a key (`SYN_CHAT_KEY`), the file is
 * AES-GCM encrypted (Web Crypto) and unreadable without it.
 */
export class CheckpointStore {
  readonly stateDir: string;
  #key?: string;

  constructor(stateDir: string, options: { key?: string } = {}) {
    this.stateDir = stateDir;
    this.#key = options.key || undefined;
  }

  /** True when checkpoints are encrypted at rest. */
  get encrypted(): boolean {
    return this.#key !== undefined;
  }

  folder(sessionId: string): string {
    assertSessionId(sessionId);
    return joinPath(this.stateDir, "sessions", sessionId);
  }

  #file(sessionId: string): string {
    return joinPath(this.folder(sessionId), "checkpoint.json");
  }

  /** The session's checkpoint, or `undefined` when it has none. */
  async load(sessionId: string): Promise<Checkpoint | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(this.#file(sessionId));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw new SynError(
        "io_error",
        `Cannot read the checkpoint of ${sessionId}: ${(error as Error).message}`,
      );
    }
    if (bytes.length > MAX_CHECKPOINT_BYTES) {
      throw new SynError("checkpoint_invalid", "Checkpoint is too large");
    }
    let text = new TextDecoder().decode(bytes);
    text = decryptText(text, this.#key);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new SynError("checkpoint_invalid", `Checkpoint of ${sessionId} is not JSON`);
    }
    return checkpointFromJson(value);
  }

  /**
   * Writes `checkpoint` as the next revision (its `revision` + 1) and returns what was
   * written. Refuses a stale write (another writer got there first).
   */
  async save(checkpoint: Checkpoint, now: number): Promise<Checkpoint> {
    const folder = this.folder(checkpoint.session_id);
    // Every folder on the way is 0700, an existing wider one (a 0755 --state-dir) included.
    for (const path of [this.stateDir, joinPath(this.stateDir, "sessions"), folder]) {
      ensurePrivateDirSync(path);
    }
    const current = await this.load(checkpoint.session_id).catch(() => undefined);
    if (current && current.revision > checkpoint.revision) {
      throw new SynError("checkpoint_conflict", "The checkpoint changed since it was read");
    }
    const next: Checkpoint = { ...checkpoint, revision: checkpoint.revision + 1, updated_ts: now };
    const text = encryptText(JSON.stringify(next), this.#key);
    await writeDurably(this.#file(checkpoint.session_id), text);
    return next;
  }

  /** Every session id with a checkpoint, sorted. */
  async sessions(): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(joinPath(this.stateDir, "sessions"))) {
        if (entry.isDirectory) ids.push(entry.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return ids.sort(compareCodePoints);
  }
}

/** Temp file, fsync, rename over, fsync the folder: the previous or the next file, never half. */
async function writeDurably(path: string, text: string): Promise<void> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    using file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    await writeAll(file, text);
    await file.sync();
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  await Deno.rename(temp, path);
  try {
    using folder = await Deno.open(joinPath(path, ".."), { read: true });
    await folder.sync();
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  }
}
