import {
  type ByteSource,
  compareCodePoints,
  errorMessage,
  joinPath,
  neutralizeTerminalText,
  SynError,
} from "../core/mod.ts";
import { type IngestFormat, lineContent, lineShape } from "./_line_events.ts";
import { type InputLine, readLines } from "./_read_lines.ts";
import { MAX_JSON_DEPTH, withinDepth } from "./_json_depth.ts";
import type { EventStore } from "./event_store.ts";
import { type ToolEvent, type ToolEventParser, toolEventParser } from "./tool_event.ts";

export { INGEST_FORMATS, type IngestFormat } from "./_line_events.ts";

/** One input: a file or a folder (its `*.jsonl` files, recursively), or a stream. */
export interface IngestSource {
  /** Where to read (`-` with a `stream`). */
  path: string;
  /** How reports name it (default `path`): the path as the user wrote it. */
  name?: string;
  /** The bytes to read instead of `path` (standard input). */
  stream?: ReadableStream<Uint8Array> | ByteSource;
}

/** Running totals, reported after each batch. */
export interface IngestProgress {
  file: string;
  read: number;
  added: number;
  duplicates: number;
  bad: number;
}

export interface IngestOptions {
  /** How lines are read (default `auto`: corpus session, trace line or event, per line). */
  format?: IngestFormat;
  /** Default 1 MiB. */
  maxLineBytes?: number;
  /** Per file (or stream); default 256 MiB. */
  maxFileBytes?: number;
  /** Events per store transaction; default 20,000. */
  batchSize?: number;
  onProgress?: (progress: IngestProgress) => void;
}

/** A line that was skipped, and why. `line` counts from 1. */
export interface BadLine {
  file: string;
  line: number;
  reason: string;
}

/**
 * A file most of whose lines were bad under the `--format` given, while most of them look
 * like another format: that format, and how many of the file's lines look like it.
 */
export interface FormatHint {
  file: string;
  format: Exclude<IngestFormat, "auto">;
  matching: number;
  lines: number;
}

/** What an ingest did. `read` = `added` + `duplicates`. */
export interface IngestReport {
  files: number;
  /** Events read from the inputs that passed the schema. */
  read: number;
  added: number;
  /** Events whose `event_id` the store already had (or that came twice). */
  duplicates: number;
  /** Lines that hold no event by design (a trace's `tool_start`, the chat's other kinds). */
  skipped: number;
  /** Bad lines, the first `MAX_BAD_LISTED` of them. */
  bad: BadLine[];
  /** How many bad lines there were in all. */
  bad_total: number;
  /** Files that look like another format than the one given (see `FormatHint`). */
  format_hints: FormatHint[];
}

const MAX_BAD_LISTED = 1000;
const MAX_REASON_CHARS = 300;

/**
 * Reads tool events from files, folders and streams into a store. Every line that holds
 * no valid event is reported with its file and line (never dropped silently) and the
 * rest goes on; the store makes a second ingest of the same input add nothing. Missing
 * inputs fail before anything is read (`SynError` `io_error`).
 */
export async function ingestSources(
  store: EventStore,
  sources: readonly IngestSource[],
  options: IngestOptions = {},
): Promise<IngestReport> {
  const files = await expandSources(sources);
  const run = new IngestRun(store, await toolEventParser(), options);
  for (const file of files) await run.ingestFile(file);
  await run.flush();
  return run.report(files.length);
}

interface InputFile {
  name: string;
  open(): Promise<ReadableStream<Uint8Array> | ByteSource>;
}

/** The files behind the sources, in order; a folder gives its `*.jsonl` files sorted. */
async function expandSources(sources: readonly IngestSource[]): Promise<InputFile[]> {
  const files: InputFile[] = [];
  for (const source of sources) {
    const shown = source.name ?? source.path;
    if (source.stream) {
      const stream = source.stream;
      files.push({ name: shown === "-" ? "<stdin>" : shown, open: () => Promise.resolve(stream) });
      continue;
    }
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(source.path);
    } catch (error) {
      throw new SynError("io_error", `Cannot read ${shown}: ${errorMessage(error)}`, {
        path: shown,
      });
    }
    const inside = info.isDirectory ? await jsonlFiles(source.path) : [""];
    for (const relative of inside) {
      const path = relative ? joinPath(source.path, relative) : source.path;
      const name = relative ? joinPath(shown, relative) : shown;
      files.push({ name, open: () => openFile(path, name) });
    }
  }
  return files;
}

/**
 * `*.jsonl` files under a folder as paths relative to it, depth first, by code point;
 * linked folders are not followed (no cycles).
 */
async function jsonlFiles(folder: string, prefix = ""): Promise<string[]> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(joinPath(folder, prefix))) entries.push(entry);
  entries.sort((a, b) => compareCodePoints(a.name, b.name));
  const found: string[] = [];
  for (const entry of entries) {
    const relative = prefix ? joinPath(prefix, entry.name) : entry.name;
    if (entry.isDirectory) found.push(...await jsonlFiles(folder, relative));
    else if (
      entry.name.endsWith(".jsonl") && (entry.isFile || await isFile(joinPath(folder, relative)))
    ) {
      found.push(relative);
    }
  }
  return found;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

async function openFile(path: string, name: string): Promise<ReadableStream<Uint8Array>> {
  try {
    return (await Deno.open(path, { read: true })).readable;
  } catch (error) {
    throw new SynError("io_error", `Cannot read ${name}: ${errorMessage(error)}`, { path: name });
  }
}

/** The state of one ingest: the pending batch and the totals. */
class IngestRun {
  #store: EventStore;
  #parse: ToolEventParser;
  #options: Required<Omit<IngestOptions, "onProgress">> & Pick<IngestOptions, "onProgress">;
  #pending: ToolEvent[] = [];
  #file = "";
  #totals = { read: 0, added: 0, duplicates: 0, skipped: 0 };
  #bad: BadLine[] = [];
  #badTotal = 0;
  #hints: FormatHint[] = [];
  /** The current file: its lines, its bad lines, and how many lines look like each format. */
  #fileLines = { lines: 0, bad: 0, lastBad: 0, shapes: new Map<FormatHint["format"], number>() };

  constructor(store: EventStore, parse: ToolEventParser, options: IngestOptions) {
    this.#store = store;
    this.#parse = parse;
    this.#options = {
      format: options.format ?? "auto",
      maxLineBytes: options.maxLineBytes ?? 1024 * 1024,
      maxFileBytes: options.maxFileBytes ?? 256 * 1024 * 1024,
      batchSize: options.batchSize ?? 20_000,
      onProgress: options.onProgress,
    };
  }

  async ingestFile(file: InputFile): Promise<void> {
    this.#file = file.name;
    this.#fileLines = { lines: 0, bad: 0, lastBad: 0, shapes: new Map() };
    const lines = readLines(await file.open(), this.#options);
    for await (const entry of lines) {
      this.#fileLines.lines++;
      this.#take(entry);
      if (this.#pending.length >= this.#options.batchSize) await this.flush();
    }
    this.#hintFormat();
  }

  /** When most lines were bad and most look like another format, says which. */
  #hintFormat(): void {
    const { lines, bad, shapes } = this.#fileLines;
    const format = this.#options.format;
    if (format === "auto" || bad * 2 <= lines) return;
    const [best, matching] = [...shapes].reduce(
      (top, entry) => entry[1] > top[1] ? entry : top,
      ["events", 0] as [FormatHint["format"], number],
    );
    const reading = (name: string) => name === "bfcl" ? "taubench" : name;
    if (matching * 2 <= lines || reading(best) === reading(format)) return;
    this.#hints.push({ file: this.#file, format: best, matching, lines });
  }

  #take(entry: InputLine): void {
    if (entry.problem !== undefined) return this.#reject(entry.line, entry.problem);
    let value: unknown;
    try {
      value = JSON.parse(entry.text);
    } catch (error) {
      return this.#reject(entry.line, `not JSON: ${errorMessage(error)}`);
    }
    if (!withinDepth(value)) {
      return this.#reject(entry.line, `nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const shape = lineShape(value);
    if (shape) this.#fileLines.shapes.set(shape, (this.#fileLines.shapes.get(shape) ?? 0) + 1);
    const content = lineContent(value, this.#options.format, entry.line);
    if (content.kind === "skip") this.#totals.skipped++;
    else if (content.kind === "bad") this.#reject(entry.line, content.reason);
    else {
      for (const candidate of content.candidates) {
        const verdict = this.#parse(candidate.value);
        if (verdict.ok) this.#pending.push(verdict.event);
        else {
          const where = candidate.label ? `${candidate.label}: ` : "";
          this.#reject(entry.line, `${where}${verdict.reason}`);
        }
      }
    }
  }

  #reject(line: number, reason: string): void {
    this.#badTotal++;
    if (this.#fileLines.lastBad !== line) this.#fileLines.bad++;
    this.#fileLines.lastBad = line;
    if (this.#bad.length < MAX_BAD_LISTED) {
      // A reason may quote the line (JSON.parse does): control characters are escaped
      // before it can reach a terminal.
      const cut = reason.length > MAX_REASON_CHARS
        ? `${reason.slice(0, MAX_REASON_CHARS)}…`
        : reason;
      const short = neutralizeTerminalText(cut).replaceAll("\n", "\\n");
      this.#bad.push({ file: this.#file, line, reason: short });
    }
  }

  async flush(): Promise<void> {
    if (this.#pending.length) {
      const batch = this.#pending;
      this.#pending = [];
      const result = await this.#store.append(batch);
      this.#totals.read += batch.length;
      this.#totals.added += result.added;
      this.#totals.duplicates += result.duplicates;
    }
    this.#options.onProgress?.({
      file: this.#file,
      read: this.#totals.read,
      added: this.#totals.added,
      duplicates: this.#totals.duplicates,
      bad: this.#badTotal,
    });
  }

  report(files: number): IngestReport {
    return {
      files,
      ...this.#totals,
      bad: this.#bad,
      bad_total: this.#badTotal,
      format_hints: this.#hints,
    };
  }
}
