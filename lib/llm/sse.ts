/** One server-sent event (WHATWG HTML §9.2). `event` is "message" when the server named none. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * Incremental server-sent events parser: feed text in chunks split anywhere (even inside
 * a CRLF), get the complete events. Handles `event:`, multi-line `data:`, `id:`,
 * `retry:`, comments (`:`), and LF, CR or CRLF line ends.
 */
export class SseParser {
  #buffer = "";
  #skipLeadingLf = false;
  #started = false;
  #event = "";
  #data: string[] = [];
  #dataLength = 0;
  #id?: string;
  #retry?: number;

  /** Characters held for the event in progress (to cap one event's size while reading). */
  get pending(): number {
    return this.#buffer.length + this.#dataLength;
  }

  /** Parses one chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    // Nothing new: return before the pending-CRLF flag below is cleared.
    if (chunk === "") return [];
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#skipLeadingLf && text.startsWith("\n")) text = text.slice(1);
    this.#skipLeadingLf = false;
    this.#buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    while (start < this.#buffer.length) {
      const cr = this.#buffer.indexOf("\r", start);
      const lf = this.#buffer.indexOf("\n", start);
      let end: number;
      if (cr === -1 && lf === -1) break;
      else if (cr === -1) end = lf;
      else if (lf === -1) end = cr;
      else end = Math.min(cr, lf);
      const line = this.#buffer.slice(start, end);
      let next = end + 1;
      if (this.#buffer[end] === "\r") {
        if (end + 1 < this.#buffer.length) {
          if (this.#buffer[end + 1] === "\n") next = end + 2;
        } else {
          // The LF of this CRLF may come with the next chunk.
          this.#skipLeadingLf = true;
        }
      }
      const event = this.#line(line);
      if (event) events.push(event);
      start = next;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  /** Ends the stream: an unterminated last event is still delivered when it has data. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#buffer.length > 0) {
      const event = this.#line(this.#buffer);
      this.#buffer = "";
      if (event) events.push(event);
    }
    const last = this.#dispatch();
    if (last) events.push(last);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") {
      this.#data.push(value);
      this.#dataLength += value.length + 1;
    } else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.#retry = Number(value);
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const hasData = this.#data.length > 0;
    const event: SseEvent = { event: this.#event || "message", data: this.#data.join("\n") };
    if (this.#id !== undefined) event.id = this.#id;
    if (this.#retry !== undefined) event.retry = this.#retry;
    this.#event = "";
    this.#data = [];
    this.#dataLength = 0;
    this.#retry = undefined;
    return hasData ? event : undefined;
  }
}

/** Server-sent events from a byte or text stream (UTF-8 split across chunks is fine). */
export async function* parseSse(
  source: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of source) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    yield* parser.push(text);
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}
