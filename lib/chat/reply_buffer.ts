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
    return this.#append(type, { ...payload, correlation_id: this.correlationId });
  }

  /**
   * Appends a text `chunk` event: `emit("chunk", { content, final })` with its payload made
   * whole at once rather than copied with the correlation id added, for the event a reply
   * sends per delta and keeps for the life of the session.
   */
  chunk(content: string, final: boolean): ChatEvent {
    return this.#append("chunk", { content, final, correlation_id: this.correlationId });
  }

  #append(type: ChatEventType, payload: Record<string, unknown>): ChatEvent {
    if (this.done) throw new Error("A reply emits nothing after done");
    const event: ChatEvent = {
      event_type: type,
      payload,
      sequence: this.events.length + 1,
      timestamp: this.#clock.now() / 1000,
    };
    this.events.push(event);
    if (type === "done") this.#done = true;
    // forEach with the event as `this`: no iterator and no closure per event.
    this.#listeners.forEach(notify, event);
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

/** Hands `this` (an event) to one listener; a broken one (a closed socket) must not break the reply. */
function notify(this: ChatEvent, listener: ReplyListener): void {
  try {
    listener(this);
  } catch {
    // ignored: listeners only observe
  }
}
