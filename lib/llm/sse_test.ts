import assert from "node:assert/strict";
import { parseSse, type SseEvent, SseParser } from "./sse.ts";

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return [...events, ...parser.end()];
}

const SAMPLE = 'event: message_start\ndata: {"a":1}\n\n: a comment\ndata: line one\n' +
  "data: line two\nid: 7\nretry: 1500\n\nevent: ping\ndata:\n\ndata: [DONE]\n\n";

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"a":1}' },
  { event: "message", data: "line one\nline two", id: "7", retry: 1500 },
  { event: "ping", data: "", id: "7" },
  { event: "message", data: "[DONE]", id: "7" },
];

Deno.test("SseParser reads named events, multi-line data, comments, id and retry", () => {
  assert.deepEqual(parseAll([SAMPLE]), EXPECTED);
});

Deno.test("SseParser gives the same events whatever the chunk boundaries", () => {
  for (let size = 1; size <= 7; size++) {
    const chunks: string[] = [];
    for (let index = 0; index < SAMPLE.length; index += size) {
      chunks.push(SAMPLE.slice(index, index + size));
    }
    assert.deepEqual(parseAll(chunks), EXPECTED, `chunk size ${size}`);
  }
});

Deno.test("SseParser treats CRLF, CR and LF line ends alike, even split inside CRLF", () => {
  const crlf = SAMPLE.replaceAll("\n", "\r\n");
  const cr = SAMPLE.replaceAll("\n", "\r");
  assert.deepEqual(parseAll([crlf]), EXPECTED);
  assert.deepEqual(parseAll([cr]), EXPECTED);
  const splitAt = crlf.indexOf("\r\n") + 1;
  assert.deepEqual(parseAll([crlf.slice(0, splitAt), crlf.slice(splitAt)]), EXPECTED);
});

Deno.test("SseParser keeps a CRLF split by an empty chunk as one line end", () => {
  // An empty chunk (a zero-byte read, or a decoder holding back a partial character)
  // between the CR and the LF must not turn the LF into a blank line that ends the event.
  assert.deepEqual(parseAll(["data: a\r", "", "\ndata: b\r\n\r\n"]), [
    { event: "message", data: "a\nb" },
  ]);
});

Deno.test("SseParser ignores events without data, strips one leading space and a BOM", () => {
  assert.deepEqual(parseAll(["\uFEFFevent: lonely\n\ndata:  two spaces\n\n"]), [
    { event: "message", data: " two spaces" },
  ]);
});

Deno.test("SseParser delivers an unterminated last event at the end", () => {
  assert.deepEqual(parseAll(["data: tail"]), [{ event: "message", data: "tail" }]);
});

Deno.test("parseSse() decodes UTF-8 split across byte chunks", async () => {
  const bytes = new TextEncoder().encode("data: héllo ✓\n\n");
  async function* source() {
    for (const byte of bytes) yield new Uint8Array([byte]);
  }
  const events: SseEvent[] = [];
  for await (const event of parseSse(source())) events.push(event);
  assert.deepEqual(events, [{ event: "message", data: "héllo ✓" }]);
});

Deno.test("SseParser counts the characters of the event in progress", () => {
  const parser = new SseParser();
  assert.equal(parser.pending, 0);
  assert.deepEqual(parser.push("data: abc\ndata: de"), []);
  assert.equal(parser.pending, 4 + "data: de".length);
  assert.equal(parser.push("\n\n").length, 1);
  assert.equal(parser.pending, 0);
});
