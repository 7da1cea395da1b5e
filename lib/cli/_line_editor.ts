/**
 * Line editing for the chat REPL when its input is a terminal: the keys people expect of a
 * shell prompt, pure — text in, lines and screen output out — so it is tested by feeding it
 * bytes. `editedLines` puts the terminal in raw mode only while a line is being typed, so
 * Ctrl-C during a reply still arrives as SIGINT (which stops the reply).
 *
 * Keys: printable text (pasted lines too), Enter; ← → (Ctrl-B, Ctrl-F), Home End (Ctrl-A,
 * Ctrl-E); Backspace, Delete, Ctrl-U (to the start), Ctrl-K (to the end), Ctrl-W (a word
 * back); ↑ ↓ the lines entered before; Ctrl-C drops the line being typed; Ctrl-D on an
 * empty line ends the input. Other escape sequences are read whole and ignored, other
 * control characters dropped: nothing typed reaches the screen as a raw escape.
 */

/** What typing produced: a finished line, or the end of the input (Ctrl-D). */
export type EditorEvent = { type: "line"; line: string } | { type: "end" };

/** The longest line kept, in code points, as for piped input. */
export const MAX_LINE_CHARS = 256 * 1024;

/** Lines the history keeps, oldest dropped first. */
const MAX_HISTORY = 500;

const ESC = "\u001b";

/** One key, as `feed` reads it from the text typed. */
type Key = { text: string } | { control: string };

export class LineEditor {
  readonly #prompt: string;
  readonly #history: string[] = [];
  #line: string[] = [];
  #cursor = 0;
  /** Where ↑/↓ stand in the history; `history.length` is the line being typed. */
  #recall = 0;
  #draft: string[] = [];
  /** An escape sequence cut by the end of a read, kept for the next one. */
  #pending = "";

  constructor(options: { prompt: string }) {
    this.#prompt = options.prompt;
  }

  /** The line being typed, as it is now. */
  get line(): string {
    return this.#line.join("");
  }

  /** The lines entered so far, oldest first. */
  get history(): readonly string[] {
    return this.#history;
  }

  /** What to write to start a line: the prompt, and the line typed so far. */
  start(): string {
    return this.#render();
  }

  /** Feeds typed text; returns the lines and ends it finished and what to write. */
  feed(text: string): { events: EditorEvent[]; output: string } {
    const events: EditorEvent[] = [];
    let output = "";
    const keys = this.#keys(this.#pending + text);
    for (const key of keys) {
      const result = "text" in key ? this.#insert(key.text) : this.#control(key.control);
      if (result.event) events.push(result.event);
      output += result.output;
      if (result.event?.type === "end") break;
    }
    return { events, output };
  }

  /** Splits text into keys; an unfinished escape sequence is kept in `#pending`. */
  #keys(text: string): Key[] {
    const keys: Key[] = [];
    this.#pending = "";
    let plain = "";
    const flush = () => {
      if (plain) keys.push({ text: plain });
      plain = "";
    };
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      if (char === ESC) {
        flush();
        const length = escapeLength(text, index);
        if (length === 0) {
          this.#pending = text.slice(index);
          break;
        }
        keys.push({ control: text.slice(index, index + length) });
        index += length - 1;
      } else if (char < " " || char === "\u007f") {
        flush();
        keys.push({ control: char });
        // A pasted CRLF is one Enter.
        if (char === "\r" && text[index + 1] === "\n") index++;
      } else plain += char;
    }
    flush();
    return keys;
  }

  #insert(text: string): { output: string; event?: EditorEvent } {
    const room = MAX_LINE_CHARS - this.#line.length;
    const chars = Array.from(text).slice(0, Math.max(0, room));
    this.#line.splice(this.#cursor, 0, ...chars);
    this.#cursor += chars.length;
    return { output: this.#render() };
  }

  #control(key: string): { output: string; event?: EditorEvent } {
    switch (key) {
      case "\r":
      case "\n":
        return this.#enter();
      case "\u0003": // Ctrl-C: drop the line, start afresh
        this.#reset([]);
        return { output: `^C\r\n${this.#render()}` };
      case "\u0004": // Ctrl-D: the end on an empty line, else delete under the cursor
        if (this.#line.length === 0) return { output: "\r\n", event: { type: "end" } };
        return this.#edit(() => this.#line.splice(this.#cursor, 1));
      case "\u007f":
      case "\b":
        return this.#edit(() => {
          if (this.#cursor > 0) this.#line.splice(--this.#cursor, 1);
        });
      case `${ESC}[3~`:
        return this.#edit(() => this.#line.splice(this.#cursor, 1));
      case "\u0001":
      case `${ESC}[H`:
      case `${ESC}OH`:
      case `${ESC}[1~`:
        return this.#move(0);
      case "\u0005":
      case `${ESC}[F`:
      case `${ESC}OF`:
      case `${ESC}[4~`:
        return this.#move(this.#line.length);
      case "\u0002":
      case `${ESC}[D`:
        return this.#move(this.#cursor - 1);
      case "\u0006":
      case `${ESC}[C`:
        return this.#move(this.#cursor + 1);
      case "\u0015": // Ctrl-U
        return this.#edit(() => this.#line.splice(0, this.#cursor), 0);
      case "\u000b": // Ctrl-K
        return this.#edit(() => this.#line.splice(this.#cursor));
      case "\u0017": // Ctrl-W
        return this.#edit(() => {
          const start = wordStart(this.#line, this.#cursor);
          this.#line.splice(start, this.#cursor - start);
          this.#cursor = start;
        });
      case `${ESC}[A`:
      case `${ESC}OA`:
        return this.#recallAt(this.#recall - 1);
      case `${ESC}[B`:
      case `${ESC}OB`:
        return this.#recallAt(this.#recall + 1);
      default:
        return { output: "" };
    }
  }

  #enter(): { output: string; event: EditorEvent } {
    const line = this.line;
    if (line.trim() && this.#history.at(-1) !== line) {
      this.#history.push(line);
      if (this.#history.length > MAX_HISTORY) this.#history.shift();
    }
    this.#reset([]);
    return { output: "\r\n", event: { type: "line", line } };
  }

  #edit(change: () => void, cursor?: number): { output: string } {
    change();
    if (cursor !== undefined) this.#cursor = cursor;
    this.#cursor = Math.min(this.#cursor, this.#line.length);
    return { output: this.#render() };
  }

  #move(cursor: number): { output: string } {
    this.#cursor = Math.max(0, Math.min(this.#line.length, cursor));
    return { output: this.#render() };
  }

  #recallAt(index: number): { output: string } {
    if (index < 0 || index > this.#history.length) return { output: "" };
    if (this.#recall === this.#history.length) this.#draft = this.#line;
    this.#recall = index;
    this.#line = index === this.#history.length
      ? [...this.#draft]
      : Array.from(this.#history[index]);
    this.#cursor = this.#line.length;
    return { output: this.#render() };
  }

  #reset(line: string[]): void {
    this.#line = line;
    this.#cursor = 0;
    this.#recall = this.#history.length;
    this.#draft = [];
  }

  /** The whole line redrawn: prompt, text, the rest of the row cleared, cursor placed. */
  #render(): string {
    const back = this.#line.length - this.#cursor;
    return `\r${this.#prompt}${this.line}${ESC}[K${back ? `${ESC}[${back}D` : ""}`;
  }
}

/**
 * The length of the escape sequence at `index`: `ESC [ … final` (CSI) or `ESC O x` (SS3),
 * else ESC and one character; 0 when the text ends before the sequence does.
 */
function escapeLength(text: string, index: number): number {
  const kind = text[index + 1];
  if (kind === undefined) return 0;
  if (kind === "O") return text.length > index + 2 ? 3 : 0;
  if (kind !== "[") return 2;
  for (let end = index + 2; end < text.length; end++) {
    const code = text.charCodeAt(end);
    if (code >= 0x40 && code <= 0x7e) return end - index + 1;
  }
  return 0;
}

/** Where the word before `cursor` starts (spaces before it skipped first). */
function wordStart(line: string[], cursor: number): number {
  let start = cursor;
  while (start > 0 && line[start - 1] === " ") start--;
  while (start > 0 && line[start - 1] !== " ") start--;
  return start;
}

/** A terminal on standard input: raw mode on and off, and reads of what was typed. */
export interface TerminalInput {
  setRaw(raw: boolean): void;
  read(buffer: Uint8Array): Promise<number | null>;
}

/**
 * The lines typed at `terminal`, edited with a {@linkcode LineEditor} that `write`s to the
 * screen. Raw mode is on only while a line is typed; the input ends with Ctrl-D on an
 * empty line or the end of the terminal's input.
 */
export async function* editedLines(
  terminal: TerminalInput,
  write: (text: string) => void | Promise<void>,
  options: { prompt: string },
): AsyncGenerator<string> {
  const editor = new LineEditor(options);
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  const waiting: EditorEvent[] = [];
  while (true) {
    if (waiting.length === 0) {
      terminal.setRaw(true);
      try {
        await write(editor.start());
        while (waiting.length === 0) {
          const count = await terminal.read(buffer);
          if (count === null) {
            waiting.push({ type: "end" });
            break;
          }
          const fed = editor.feed(decoder.decode(buffer.subarray(0, count), { stream: true }));
          if (fed.output) await write(fed.output);
          waiting.push(...fed.events);
        }
      } finally {
        terminal.setRaw(false);
      }
    }
    const event = waiting.shift()!;
    if (event.type === "end") return;
    yield event.line;
  }
}
