/** One server-sent event (WHATWG HTML §9.2). `event` is "message" when the server named none. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

const LF = 0x0a;
const COLON = 0x3a;
const SPACE = 0x20;
/** What a chunk that completes no event returns: shared, never changed. */
const NO_EVENTS: readonly SseEvent[] = Object.freeze([]);

/**
 * Incremental server-sent events parser: feed text in chunks split anywhere (even inside
 * a CRLF), get the complete events. Handles `event:`, multi-line `data:`, `id:`,
 * `retry:`, comments (`:`), and LF, CR or CRLF line ends. A token stream is thousands of
 * one-event chunks a second: a line is read in place (its field compared where it stands,
 * only its value cut out), and a chunk completing no event allocates nothing.
 */
export class SseParser {
  #buffer = "";
  #skipLeadingLf = false;
  #started = false;
  #event = "";
  /** The event's data lines joined so far; undefined before its first. */
  #data: string | undefined;
  #dataLength = 0;
  #id?: string;
  #retry?: number;

  /** Characters held for the event in progress (to cap one event's size while reading). */
  get pending(): number {
    return this.#buffer.length + this.#dataLength;
  }

  /** Parses one chunk; returns the events it completed. */
  push(chunk: string): readonly SseEvent[] {
    // Nothing new: return before the pending-CRLF flag below is cleared.
    if (chunk === "") return NO_EVENTS;
    let text = chunk;
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#skipLeadingLf && text.charCodeAt(0) === LF) text = text.slice(1);
    this.#skipLeadingLf = false;
    const buffer = this.#buffer + text;
    let events: SseEvent[] | undefined;
    let start = 0;
    // Where the next CR and LF are (-1: none left); looked for again only once passed.
    let cr = -2;
    let lf = -2;
    while (start < buffer.length) {
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = buffer.indexOf("\n", start);
      if (cr === -1 && lf === -1) break;
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      let next = end + 1;
      if (end === cr) {
        if (end + 1 < buffer.length) {
          if (buffer.charCodeAt(end + 1) === LF) next = end + 2;
        } else {
          // The LF of this CRLF may come with the next chunk.
          this.#skipLeadingLf = true;
        }
      }
      const event = this.#line(buffer, start, end);
      if (event) {
        if (events) events.push(event);
        else events = [event];
      }
      start = next;
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    return events ?? NO_EVENTS;
  }

  /** Ends the stream: an unterminated last event is still delivered when it has data. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#buffer.length > 0) {
      const event = this.#line(this.#buffer, 0, this.#buffer.length);
      this.#buffer = "";
      if (event) events.push(event);
    }
    const last = this.#dispatch();
    if (last) events.push(last);
    return events;
  }

  /** The line `text[start, end)`: a field, a comment, or (empty) the end of an event. */
  #line(text: string, start: number, end: number): SseEvent | undefined {
    if (start === end) return this.#dispatch();
    if (text.charCodeAt(start) === COLON) return undefined;
    let colon = start;
    while (colon < end && text.charCodeAt(colon) !== COLON) colon++;
    let from = Math.min(colon + 1, end);
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const field = colon - start;
    if (isField(text, start, field, "data")) this.#addData(text.slice(from, end));
    else if (isField(text, start, field, "event")) this.#event = text.slice(from, end);
    else if (isField(text, start, field, "id")) {
      const id = text.slice(from, end);
      if (!id.includes("\0")) this.#id = id;
    } else if (isField(text, start, field, "retry")) {
      const retry = text.slice(from, end);
      if (/^\d+$/.test(retry)) this.#retry = Number(retry);
    }
    return undefined;
  }

  #addData(value: string): void {
    this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    this.#dataLength += value.length + 1;
  }

  #dispatch(): SseEvent | undefined {
    let event: SseEvent | undefined;
    if (this.#data !== undefined) {
      event = { event: this.#event || "message", data: this.#data };
      if (this.#id !== undefined) event.id = this.#id;
      if (this.#retry !== undefined) event.retry = this.#retry;
    }
    this.#event = "";
    this.#data = undefined;
    this.#dataLength = 0;
    this.#retry = undefined;
    return event;
  }
}

/** Whether the `length` characters of `text` at `start` are the field `name`. */
function isField(text: string, start: number, length: number, name: string): boolean {
  return length === name.length && text.startsWith(name, start);
}

/** Server-sent events from a byte or text stream (UTF-8 split across chunks is fine). */
export async function* parseSse(
  source: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of source) {
    yield* parser.push(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}
