import { SynError } from "../core/mod.ts";

/** A message entering the chat (K-gent API §3): input, never a Turn. */
export interface ChatMessage {
  readonly role: "user" | "system";
  /** Never empty or only white space. */
  readonly content: string;
  /** Unix seconds; increases within a session. */
  readonly timestamp: number;
  readonly mode: string;
  readonly correlation_id: string;
}

/**
 * A frozen `ChatMessage`; the caller dates it (from its `Clock`). Throws `SynError` `invalid_message` for empty content (the
 * spec's `__post_init__` law) and for a timestamp not after `previous` (monotonic per
 * session).
 */
export function createChatMessage(
  fields:
    & Omit<ChatMessage, "correlation_id" | "mode" | "role">
    & Partial<ChatMessage>,
  previous?: number,
): ChatMessage {
  if (typeof fields.content !== "string" || fields.content.trim() === "") {
    throw new SynError("invalid_message", "ChatMessage content cannot be empty");
  }
  const timestamp = fields.timestamp;
  if (previous !== undefined && !(timestamp > previous)) {
    throw new SynError("invalid_message", "ChatMessage timestamps must increase within a session");
  }
  return Object.freeze({
    role: fields.role ?? "user",
    content: fields.content,
    timestamp,
    mode: fields.mode ?? "reflect",
    correlation_id: fields.correlation_id ?? crypto.randomUUID(),
  });
}
