/**
 * Files and folders only their owner may read (an edge: it touches the file system).
 * A state directory holds conversations, tool arguments and cached responses, so every
 * folder syn makes there is 0700 and every file 0600 — whatever the umask, and also when
 * the folder or file already existed with a wider mode (it is tightened, not trusted).
 */

/** Creates `path` (and its parents) as 0700, and tightens it when it is wider. */
export function ensurePrivateDirSync(path: string): void {
  Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
  tightenSync(path, 0o700);
}

/** Creates `path` empty as 0600 when it is absent, and tightens it when it is wider. */
export function ensurePrivateFileSync(path: string): void {
  try {
    Deno.openSync(path, { write: true, createNew: true, mode: 0o600 }).close();
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  tightenSync(path, 0o600);
}

/**
 * Prepares an SQLite database file for `DatabaseSync`: the file is created 0600 before
 * SQLite opens it (SQLite gives its `-wal`, `-shm` and `-journal` side files the mode of
 * the database file), and side files left by an older run are tightened too.
 */
export function preparePrivateSqliteFile(path: string): void {
  ensurePrivateFileSync(path);
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    try {
      tightenSync(`${path}${suffix}`, 0o600);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

function tightenSync(path: string, mode: number): void {
  const info = Deno.statSync(path);
  if (info.mode !== null && (info.mode & 0o777 & ~mode) !== 0) Deno.chmodSync(path, mode);
}
