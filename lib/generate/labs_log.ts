import { appendJsonl, errorMessage, redactValue, SynError } from "../core/mod.ts";

/** The four Labs log streams and their files under the log root. */
export const LOG_FILES = Object.freeze({
  generator: "generator.jsonl",
  external: "external.jsonl",
  critic: "critic.jsonl",
  patches: "patches.jsonl",
});
export type LogStream = keyof typeof LOG_FILES;

/** The default log root, relative to the working directory (Labs spec "Logging"). */
export const DEFAULT_LOG_DIR = "meta/output/labs";

/**
 * Append-only JSONL logs under one root (an edge: it writes files). Every record goes
 * through core `redactValue` with the run's secrets first, then one locked O_APPEND
 * write, so concurrent processes never tear or interleave lines.
 */
export class LabsLog {
  readonly dir: string;
  readonly #secrets: readonly string[];
  #ready?: Promise<void>;

  constructor(dir: string, secrets: readonly string[] = []) {
    this.dir = dir.replace(/\/+$/, "") || "/";
    this.#secrets = secrets;
  }

  /** Path of one stream's file. */
  path(stream: LogStream): string {
    return `${this.dir}/${LOG_FILES[stream]}`;
  }

  /** A deep copy with the run's secrets (and anything shaped like a key) masked. */
  redact<T>(value: T): T {
    return redactValue(value, this.#secrets);
  }

  /**
   * Creates the log root if needed. Call it before any work so that an unusable folder
   * is a clear `SynError` (`io_error`) up front, not a failure after an asset was made.
   */
  prepare(): Promise<void> {
    this.#ready ??= Deno.mkdir(this.dir, { recursive: true }).catch((error) => {
      this.#ready = undefined;
      throw new SynError(
        "io_error",
        `Cannot create the log folder: ${this.dir} (${errorMessage(error)})`,
        { path: this.dir },
      );
    });
    return this.#ready;
  }

  /** Appends one record (redacted) to a stream; creates the folder on first use. */
  async append(stream: LogStream, record: Record<string, unknown>): Promise<void> {
    await this.prepare();
    const path = this.path(stream);
    try {
      await appendJsonl(path, this.redact(record));
    } catch (error) {
      throw new SynError("io_error", `Cannot append to the log: ${path} (${errorMessage(error)})`, {
        path,
      });
    }
  }
}
