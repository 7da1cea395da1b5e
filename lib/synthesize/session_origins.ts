/**
 * How each recorded session's upstream was started, so that validation can start fresh
 * copies of it: a chain that writes is only ever executed in a fresh world that the
 * session's earlier calls are replayed into, never against a shared live server.
 *
 * One JSON line per session in `<state>/session-origins.jsonl` (private, append-only),
 * written by the recorder the first time it records a call of the session. Secret-looking
 * values in a command line are masked before they are written (a command holding one must
 * then be given again to `--fresh-upstream -- <command>`). The file is untrusted on read:
 * lines that are not origins are skipped, and it is read only up to a cap.
 */
import {
  appendJsonl,
  ensurePrivateDirSync,
  isRecord,
  isSecretName,
  joinPath,
  REDACTED,
  redactText,
  SynError,
} from "../core/mod.ts";

/** Where a session's upstream came from. */
export type UpstreamOrigin =
  | { transport: "stdio"; command: string[]; cwd?: string }
  | { transport: "http"; url: string };

/** One session's origin, as written. */
export interface SessionOrigin {
  session_id: string;
  upstream: UpstreamOrigin;
  /** The tools its upstream annotated `readOnlyHint: true` when the session began. */
  read_only_tools: string[];
  recorded_at: string;
}

/** The file's name in the state folder. */
export const SESSION_ORIGINS_FILE = "session-origins.jsonl";
/** A larger origins file is read only this far. */
export const MAX_ORIGINS_BYTES = 16 * 1024 * 1024;
const MAX_COMMAND_WORDS = 256;
const MAX_WORD_CHARS = 4096;

/** The origins file of a state folder. */
export function sessionOriginsPath(stateDir: string): string {
  return joinPath(stateDir, SESSION_ORIGINS_FILE);
}

/**
 * A command line with secret-looking values masked: the value of an option named like a
 * secret (`--token=…`, `--api-key …`, `PASSWORD=…`), and any known secret or key-shaped text.
 */
export function maskCommand(command: readonly string[], secrets: readonly string[]): string[] {
  const masked: string[] = [];
  let secretNext = false;
  for (const word of command) {
    if (secretNext) {
      masked.push(REDACTED);
      secretNext = false;
      continue;
    }
    const assignment = /^(-{0,2}[A-Za-z][\w.-]*)=(.*)$/s.exec(word);
    if (assignment && isSecretName(assignment[1].replace(/^-+/, ""))) {
      masked.push(`${assignment[1]}=${REDACTED}`);
      continue;
    }
    if (/^--?[A-Za-z][\w.-]*$/.test(word) && isSecretName(word.replace(/^-+/, ""))) {
      secretNext = true;
    }
    masked.push(redactText(word, secrets));
  }
  return masked;
}

/** The origin with secrets masked, ready to be written. */
export function maskedOrigin(origin: SessionOrigin, secrets: readonly string[]): SessionOrigin {
  const upstream: UpstreamOrigin = origin.upstream.transport === "stdio"
    ? {
      transport: "stdio",
      command: maskCommand(origin.upstream.command, secrets),
      ...(origin.upstream.cwd !== undefined ? { cwd: origin.upstream.cwd } : {}),
    }
    : { transport: "http", url: redactText(origin.upstream.url, secrets) };
  return { ...origin, upstream };
}

/** Appends one origin (already masked) to the state folder's file. */
export async function appendSessionOrigin(
  stateDir: string,
  origin: SessionOrigin,
): Promise<void> {
  // A state folder is private: the folder 0700, the file 0600 (the mode applies on creation).
  ensurePrivateDirSync(stateDir);
  const path = sessionOriginsPath(stateDir);
  (await Deno.open(path, { append: true, create: true, mode: 0o600 })).close();
  await appendJsonl(path, origin);
}

/** Whether a parsed line is an origin this version can use. */
function asOrigin(value: unknown): SessionOrigin | undefined {
  if (!isRecord(value) || typeof value.session_id !== "string") return undefined;
  const tools = value.read_only_tools;
  if (!Array.isArray(tools) || !tools.every((tool) => typeof tool === "string")) return undefined;
  const upstream = value.upstream;
  if (!isRecord(upstream)) return undefined;
  if (upstream.transport === "stdio") {
    const command = upstream.command;
    if (
      !Array.isArray(command) || command.length === 0 || command.length > MAX_COMMAND_WORDS ||
      !command.every((word) => typeof word === "string" && word.length <= MAX_WORD_CHARS)
    ) return undefined;
    if (upstream.cwd !== undefined && typeof upstream.cwd !== "string") return undefined;
  } else if (upstream.transport !== "http" || typeof upstream.url !== "string") {
    return undefined;
  }
  return value as unknown as SessionOrigin;
}

function untrusted(path: string, why: string): SynError {
  return new SynError(
    "untrusted_file",
    `${path} is ${why}: its recorded commands are not started (give the command after --)`,
    { path },
  );
}

/**
 * Its command lines are started by `--fresh-upstream`: like a private key, the file must be
 * this user's and writable by no one else, or it is refused.
 */
function trustedOrThrow(path: string, info: Deno.FileInfo): void {
  const uid = Deno.uid();
  if (uid !== null && info.uid !== null && info.uid !== uid) throw untrusted(path, "not yours");
  if (info.mode !== null && (info.mode & 0o022) !== 0) {
    throw untrusted(path, `writable by others (mode ${(info.mode & 0o777).toString(8)})`);
  }
}

/**
 * Every session's origin by session id (the last line of a session wins). Throws `SynError`
 * `untrusted_file` for a file that is a link, not this user's, or writable by others.
 */
export async function readSessionOrigins(stateDir: string): Promise<Map<string, SessionOrigin>> {
  const origins = new Map<string, SessionOrigin>();
  const path = sessionOriginsPath(stateDir);
  let bytes: Uint8Array;
  try {
    if (!(await Deno.lstat(path)).isFile) throw untrusted(path, "not a regular file");
    using file = await Deno.open(path, { read: true });
    const info = await file.stat();
    trustedOrThrow(path, info);
    const size = info.size;
    const buffer = new Uint8Array(Math.min(size, MAX_ORIGINS_BYTES));
    let filled = 0;
    while (filled < buffer.length) {
      const read = await file.read(buffer.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    bytes = buffer.subarray(0, filled);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return origins;
    throw error;
  }
  for (const line of new TextDecoder().decode(bytes).split("\n")) {
    if (!line.trim()) continue;
    try {
      const origin = asOrigin(JSON.parse(line));
      if (origin) origins.set(origin.session_id, origin);
    } catch {
      // a torn or foreign line: skipped
    }
  }
  return origins;
}

/**
 * The tools read-only in every one of the sessions: annotated so by the upstream of each
 * session that has an origin. A session without one says nothing is known: none.
 */
export function readOnlyToolsOf(
  origins: ReadonlyMap<string, SessionOrigin>,
  sessionIds: readonly string[],
): Set<string> {
  let common: Set<string> | undefined;
  for (const id of new Set(sessionIds)) {
    const origin = origins.get(id);
    if (!origin) return new Set();
    const tools = new Set(origin.read_only_tools);
    common = common ? new Set([...common].filter((tool) => tools.has(tool))) : tools;
  }
  return common ?? new Set();
}
