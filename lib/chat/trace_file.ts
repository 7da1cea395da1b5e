import {
  appendJsonl,
  ensurePrivateDirSync,
  ensurePrivateFileSync,
  joinPath,
  REDACTED,
} from "../core/mod.ts";
import { assertSessionId } from "./checkpoint.ts";
import type { TraceWriter } from "./chat_session.ts";

/** A session's trace file: `<stateDir>/traces/<id>.jsonl`, folder 0700, file 0600. */
export interface ChatTraceFile {
  readonly path: string;
  /** The sink for chat and tool events alike: every line goes through `traceRecord`. */
  readonly write: TraceWriter;
  /** Resolves once every event written so far is on disk. */
  flushed(): Promise<void>;
}

/**
 * Opens (creating) a session's trace file. This is the one place chat traces are written:
 * without `logContent`, every event passes `traceRecord`, which keeps no content.
 */
export function openChatTraceFile(
  stateDir: string,
  sessionId: string,
  options: { logContent: boolean },
): ChatTraceFile {
  assertSessionId(sessionId);
  ensurePrivateDirSync(stateDir);
  ensurePrivateDirSync(joinPath(stateDir, "traces"));
  const path = joinPath(stateDir, "traces", `${sessionId}.jsonl`);
  ensurePrivateFileSync(path);
  let writes = Promise.resolve();
  return {
    path,
    write(event) {
      const record = options.logContent ? event : traceRecord(event);
      // Tracing never breaks a reply.
      writes = writes.then(() => appendJsonl(path, record)).catch(() => {});
    },
    flushed: () => writes,
  };
}

type TraceEvent = Parameters<TraceWriter>[0];

/**
 * An event without chat content (K-gent API §7: no logging of raw content): a tool's
 * output keeps only its size, and its arguments keep their shape, numbers, booleans and
 * the strings that name things (`path`, ids, a URL without its query, the program of a
 * `shell.exec` command line — its arguments may carry anything); every other string —
 * `fs.write_text`'s `text`, any argument a tool adds later — keeps only its length.
 */
export function traceRecord(event: TraceEvent): TraceEvent {
  const data = { ...event.data };
  if (typeof data.output_summary === "string") {
    data.output_summary = `<${data.output_summary.length} chars>`;
  }
  if (data.input_params !== undefined) data.input_params = withoutContent(data.input_params);
  return { ...event, data };
}

const NAMING_KEYS = new Set(["path", "id", "tool"]);

function withoutContent(value: unknown, key = ""): unknown {
  if (typeof value === "string") {
    if (NAMING_KEYS.has(key) || value === REDACTED) return value;
    if (key === "url") return urlWithoutQuery(value);
    if (key === "cmd") return programOnly(value);
    return `<${value.length} chars>`;
  }
  if (Array.isArray(value)) return value.map((item) => withoutContent(item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, withoutContent(item, name)]),
    );
  }
  return value;
}

/** `grep -r x .` → `grep <8 chars>`; a first word that is not a plain program name keeps nothing. */
function programOnly(command: string): string {
  const trimmed = command.trim();
  const word = /^\S+/.exec(trimmed)?.[0] ?? "";
  if (!/^[A-Za-z0-9._+\/-]+$/.test(word)) return `<${command.length} chars>`;
  const program = word.slice(word.lastIndexOf("/") + 1) || `<${word.length} chars>`;
  const rest = trimmed.slice(word.length).trimStart();
  return rest ? `${program} <${rest.length} chars>` : program;
}

function urlWithoutQuery(text: string): string {
  try {
    const url = new URL(text);
    const hidden = url.search.length + url.hash.length;
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return hidden ? `${url.href}?<${hidden} chars>` : url.href;
  } catch {
    return `<${text.length} chars>`;
  }
}
