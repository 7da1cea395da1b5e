import { type Clock, systemClock } from "../core/mod.ts";
import type { ChatEvent, ChatEventType } from "./chat_event.ts";

/** Receives the events of one reply, in order. */
export type ReplyListener = (event: ChatEvent) => void;

/**
 * The events of one reply (one `correlation_id`), kept for the life of the session so a
 * client that reconnects can `resume` after any sequence and lose nothing. Sequences start
 * at 1 and increase by one; `done` is always the last event. Listeners are only
 * observers: removing every one (a disconnect) never stops the reply.
 */
export class ReplyBuffer {
  readonly correlationId: string;
  readonly events: ChatEvent[] = [];
  readonly abort = new AbortController();
  #listeners = new Set<ReplyListener>();
  #clock: Clock;
  #done = false;

  /** `clock` dates the events. */
  constructor(correlationId: string, clock: Clock = systemClock) {
    this.correlationId = correlationId;
    this.#clock = clock;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Appends an event with the next sequence and hands it to every listener. */
  emit(type: ChatEventType, payload: Record<string, unknown>): ChatEvent {
    if (this.done) throw new Error("A reply emits nothing after done");
    const event: ChatEvent = {
      event_type: type,
      payload: { ...payload, correlation_id: this.correlationId },
      sequence: this.events.length + 1,
      timestamp: this.#clock.now() / 1000,
    };
    this.events.push(event);
    if (type === "done") this.#done = true;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener (a closed socket) must not break the reply.
      }
    }
    return event;
  }

  /**
   * Replays the buffered events after `afterSequence`, then follows live ones. Returns
   * the unsubscribe function.
   */
  subscribe(listener: ReplyListener, afterSequence = 0): () => void {
    for (const event of this.events) if (event.sequence > afterSequence) listener(event);
    if (this.done) return () => {};
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once `done` was emitted. */
  finished(): Promise<void> {
    if (this.done) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.subscribe((event) => {
        if (event.event_type === "done") {
          off();
          resolve();
        }
      }, this.events.length);
    });
  }
}
