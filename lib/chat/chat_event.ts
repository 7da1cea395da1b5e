/** The wire event kinds (K-gent API §3 ChatEvent). */
export type ChatEventType = "chunk" | "message" | "error" | "done";

/** One server → client event. `sequence` increases strictly per `correlation_id`. */
export interface ChatEvent {
  event_type: ChatEventType;
  payload: Record<string, unknown>;
  sequence: number;
  /** Unix seconds. */
  timestamp: number;
}

/** The spec's error codes (K-gent API §4). */
export const CHAT_ERROR_CODES = [
  "RATE_LIMITED",
  "STREAM_TIMEOUT",
  "LLM_UNAVAILABLE",
  "INVALID_MESSAGE",
  "SESSION_EXPIRED",
] as const;
export type ChatErrorCode = typeof CHAT_ERROR_CODES[number];

/**
 * The last event turned into text, and its text: an event goes to every socket following
 * its reply in one pass, so it is serialised once however many there are. Events are
 * never changed once made.
 */
let lastEvent: ChatEvent | undefined;
let lastJson = "";

/** The JSON text of an event, keys in the spec's order. */
export function chatEventToJson(event: ChatEvent): string {
  if (event !== lastEvent) {
    lastJson = JSON.stringify({
      event_type: event.event_type,
      payload: event.payload,
      sequence: event.sequence,
      timestamp: event.timestamp,
    });
    lastEvent = event;
  }
  return lastJson;
}
