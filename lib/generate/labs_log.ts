import { appendJsonl, redactValue } from "../core/mod.ts";

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

  /** Appends one record (redacted) to a stream; creates the directory on first use. */
  async append(stream: LogStream, record: Record<string, unknown>): Promise<void> {
    this.#ready ??= Deno.mkdir(this.dir, { recursive: true });
    await this.#ready;
    await appendJsonl(this.path(stream), redactValue(record, this.#secrets));
  }
}
