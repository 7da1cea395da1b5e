import assert from "node:assert/strict";
import { utf8ByteLength } from "./utf8_byte_length.ts";

const encoded = (text: string) => new TextEncoder().encode(text).length;

Deno.test("utf8ByteLength counts one to four bytes per character, as TextEncoder does", () => {
  for (const text of ["", "abc", "é", "ß€", "日本語", "😀", "a😀b", "\u07ff\u0800\uffff"]) {
    assert.equal(utf8ByteLength(text), encoded(text), JSON.stringify(text));
  }
});

Deno.test("utf8ByteLength counts a lone surrogate as the three bytes of U+FFFD", () => {
  for (const text of ["\ud800", "\udc00", "a\ud83d", "\ud83d\ud83d\ude00", "\ude00\ud83d"]) {
    assert.equal(utf8ByteLength(text), encoded(text), JSON.stringify(text));
  }
});

Deno.test("utf8ByteLength agrees with TextEncoder on random text of every range", () => {
  const ranges = [[0, 0x7f], [0x80, 0x7ff], [0x800, 0xffff], [0xd800, 0xdfff]];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 500; round++) {
    let text = "";
    const length = Math.floor(random() * 24);
    for (let i = 0; i < length; i++) {
      const [low, high] = ranges[Math.floor(random() * ranges.length)];
      text += String.fromCharCode(low + Math.floor(random() * (high - low + 1)));
    }
    assert.equal(utf8ByteLength(text), encoded(text), JSON.stringify(text));
  }
});
