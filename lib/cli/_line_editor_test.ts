import assert from "node:assert/strict";
import { editedLines, LineEditor, type TerminalInput } from "./_line_editor.ts";

/**
 * A one-row-at-a-time screen that understands what the editor writes: text, `\r`, `\n`,
 * ESC[K (clear to the end of the row) and ESC[nD (cursor n left). Anything else fails.
 */
class Screen {
  rows: string[][] = [[]];
  column = 0;

  write(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      const row = this.rows[this.rows.length - 1];
      if (char === "\r") this.column = 0;
      else if (char === "\n") this.rows.push([]);
      else if (char === "\u001b") {
        const match = new RegExp(`^${char}\\[(\\d*)([KD])`).exec(text.slice(index));
        assert.ok(match, `unexpected escape: ${JSON.stringify(text.slice(index, index + 6))}`);
        if (match[2] === "K") row.splice(this.column);
        else this.column -= Number(match[1] || 1);
        index += match[0].length - 1;
      } else {
        assert.ok(char >= " ", `control character on screen: ${JSON.stringify(char)}`);
        row[this.column++] = char;
      }
    }
  }

  get text(): string[] {
    return this.rows.map((row) => row.join(""));
  }
}

/** Feeds `input` one key at a time (escape sequences whole), as a terminal sends them. */
function type(input: string[]) {
  const editor = new LineEditor({ prompt: "> " });
  const screen = new Screen();
  const lines: string[] = [];
  let ended = false;
  screen.write(editor.start());
  for (const chunk of input) {
    const { events, output } = editor.feed(chunk);
    screen.write(output);
    for (const event of events) {
      if (event.type === "line") lines.push(event.line);
      else ended = true;
    }
  }
  return { editor, screen, lines, ended };
}

const LEFT = "\u001b[D";
const RIGHT = "\u001b[C";
const UP = "\u001b[A";
const DOWN = "\u001b[B";

Deno.test("LineEditor inserts where the cursor is: arrows, Ctrl-A, Ctrl-E, backspace", () => {
  const { lines, screen } = type(["helo", LEFT, "l", "\u0001", "o", "\u007f", "\u0005", "!", "\r"]);
  assert.deepEqual(lines, ["hello!"]);
  assert.deepEqual(screen.text, ["> hello!", ""]);
  const moved = type(["abc", LEFT, LEFT, "X", RIGHT, "Y"]);
  assert.equal(moved.editor.line, "aXbYc");
  assert.equal(moved.screen.column, "> aXbY".length, "the cursor sits after Y");
  assert.deepEqual(moved.screen.text, ["> aXbYc"]);
});

Deno.test("LineEditor never puts an escape sequence on the screen as text", () => {
  // An escape split across reads, an unknown CSI key (F5) and a stray control character.
  const { lines, screen } = type(["ab", "\u001b", "[D", "\u001b[15~", "\u0007", "c\r"]);
  assert.deepEqual(lines, ["acb"]);
  assert.deepEqual(screen.text, ["> acb", ""]);
});

Deno.test("LineEditor recalls earlier lines with up and down and keeps the draft", () => {
  const { lines, editor, screen } = type([
    "first\r",
    "second\r",
    "dra",
    UP,
    UP,
    UP,
    DOWN,
  ]);
  assert.deepEqual(lines, ["first", "second"]);
  assert.equal(editor.line, "second");
  assert.equal(screen.text.at(-1), "> second");
  const back = type(["one\r", "dra", UP, DOWN, "ft\r", UP, "\r"]);
  assert.deepEqual(back.lines, ["one", "draft", "draft"]);
  assert.deepEqual(back.editor.history, ["one", "draft"], "a repeated line is kept once");
});

Deno.test("LineEditor kills words and line parts; Ctrl-C drops the line; Ctrl-D ends", () => {
  assert.deepEqual(type(["one two three", "\u0017", "\r"]).lines, ["one two "]);
  assert.deepEqual(type(["one two", "\u0001", RIGHT, "\u000b", "\r"]).lines, ["o"]);
  assert.deepEqual(type(["one two", LEFT, "\u0015", "\r"]).lines, ["o"]);
  const dropped = type(["oops", "\u0003", "fine\r"]);
  assert.deepEqual(dropped.lines, ["fine"]);
  assert.deepEqual(dropped.screen.text, ["> oops^C", "> fine", ""]);
  assert.equal(type(["x", "\u0004"]).ended, false, "Ctrl-D on a line deletes");
  assert.equal(type(["\u0004"]).ended, true);
});

Deno.test("LineEditor takes a pasted block as several lines", () => {
  assert.deepEqual(type(["a\r\nb\r\rc"]).lines, ["a", "b", ""]);
  assert.deepEqual(type(["naïve 日本\r"]).lines, ["naïve 日本"]);
});

Deno.test("editedLines() is raw only while a line is typed and ends at Ctrl-D", async () => {
  const typed = ["hi\r", "\u001b[A\r", "\u0004"].map((text) => new TextEncoder().encode(text));
  const raw: boolean[] = [];
  const terminal: TerminalInput = {
    setRaw: (on) => void raw.push(on),
    read: (buffer) => {
      const next = typed.shift();
      if (!next) return Promise.resolve(null);
      buffer.set(next);
      return Promise.resolve(next.length);
    },
  };
  const screen = new Screen();
  const lines: string[] = [];
  for await (const line of editedLines(terminal, (text) => screen.write(text), { prompt: "> " })) {
    lines.push(line);
    assert.equal(raw.at(-1), false, "cooked while the line is handled");
  }
  assert.deepEqual(lines, ["hi", "hi"]);
  assert.deepEqual(raw, [true, false, true, false, true, false]);
  assert.deepEqual(screen.text, ["> hi", "> hi", "> ", ""]);
});
