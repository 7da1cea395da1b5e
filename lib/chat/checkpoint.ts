import { SynError } from "../core/mod.ts";
import { type ChatState, emptyChatState } from "./chat_state.ts";

/** One message of the conversation as kept in a checkpoint (Spectator §1.3). */
export interface StoredMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** Unix seconds; increasing within a session. */
  timestamp: number;
}

/** The persisted unit of a session (Spectator §1.2). */
export interface Checkpoint {
  session_id: string;
  revision: number;
  /** Unix seconds. */
  updated_ts: number;
  state: ChatState;
  recent_messages: StoredMessage[];
  trace_tail: string[];
}

/** A session id is also a folder name: letters, digits, `-` and `_`, at most 64. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function assertSessionId(id: string): void {
  if (!SESSION_ID.test(id)) {
    throw new SynError("invalid_session", "A session id is 1–64 letters, digits, '-' or '_'");
  }
}

export function newCheckpoint(sessionId: string, now: number): Checkpoint {
  assertSessionId(sessionId);
  return {
    session_id: sessionId,
    revision: 0,
    updated_ts: now,
    state: emptyChatState(),
    recent_messages: [],
    trace_tail: [],
  };
}

/** How many messages a checkpoint keeps before condensing, and how many condensing keeps. */
export interface CondenseOptions {
  /** `condense_smart` acts only above this many messages. */
  maxMessages: number;
  /** Messages kept after condensing. */
  keepMessages: number;
}

export const DEFAULT_CONDENSE: Readonly<CondenseOptions> = Object.freeze({
  maxMessages: 40,
  keepMessages: 12,
});

/**
 * Folds all but the newest `keepMessages` messages into the episode summary (a count
 * and the first words of each user message: no model call, so it works offline and is
 * deterministic). `smart` condenses only when over `maxMessages`.
 */
export function condense(
  checkpoint: Checkpoint,
  mode: "condense_now" | "condense_smart",
  options: CondenseOptions = DEFAULT_CONDENSE,
): Checkpoint {
  const messages = checkpoint.recent_messages;
  if (mode === "condense_smart" && messages.length <= options.maxMessages) return checkpoint;
  if (messages.length <= options.keepMessages) return checkpoint;
  const folded = messages.slice(0, messages.length - options.keepMessages);
  const topics = folded.filter((message) => message.role === "user")
    .map((message) => message.content.replace(/\s+/g, " ").slice(0, 60));
  const line = `[condensed ${folded.length} earlier messages${
    topics.length ? `; user asked: ${topics.join(" | ")}` : ""
  }]`;
  const summary = [checkpoint.state.episode_summary, line].filter(Boolean).join("\n").slice(-8000);
  return {
    ...checkpoint,
    state: { ...checkpoint.state, episode_summary: summary },
    recent_messages: messages.slice(-options.keepMessages),
  };
}

/** Checks a parsed checkpoint file; throws `SynError` `checkpoint_invalid` naming the problem. */
export function checkpointFromJson(value: unknown): Checkpoint {
  const fail = (what: string) =>
    new SynError("checkpoint_invalid", `Checkpoint is damaged: ${what}`);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw fail("not an object");
  }
  const record = value as Record<string, unknown>;
  if (typeof record.session_id !== "string" || !SESSION_ID.test(record.session_id)) {
    throw fail("session_id");
  }
  if (!Number.isInteger(record.revision) || (record.revision as number) < 0) throw fail("revision");
  if (typeof record.updated_ts !== "number") throw fail("updated_ts");
  if (!Array.isArray(record.recent_messages)) throw fail("recent_messages");
  const state = { ...emptyChatState(), ...(record.state as object) } as ChatState;
  for (const [key, item] of Object.entries(state)) {
    const ok = key === "episode_summary"
      ? typeof item === "string"
      : Array.isArray(item) && item.every((entry) => typeof entry === "string");
    if (!ok) throw fail(`state.${key}`);
  }
  for (const message of record.recent_messages as unknown[]) {
    const m = message as StoredMessage;
    if (
      !m || typeof m.content !== "string" ||
      !["system", "user", "assistant", "tool"].includes(m.role)
    ) {
      throw fail("recent_messages entry");
    }
  }
  return {
    session_id: record.session_id,
    revision: record.revision as number,
    updated_ts: record.updated_ts,
    state,
    recent_messages: record.recent_messages as StoredMessage[],
    trace_tail: Array.isArray(record.trace_tail)
      ? (record.trace_tail as unknown[]).filter((item): item is string => typeof item === "string")
      : [],
  };
}
