import assert from "node:assert/strict";
import { Utf8ChunkDecoder } from "./utf8_chunk_decoder.ts";

/** The text of `chunks` as `TextDecoder` in stream mode gives it, and as the decoder does. */
function bothWays(chunks: Uint8Array[]): [string, string] {
  const reference = new TextDecoder();
  const decoder = new Utf8ChunkDecoder();
  let expected = "";
  let actual = "";
  for (const chunk of chunks) {
    expected += reference.decode(chunk, { stream: true });
    actual += decoder.decode(chunk);
  }
  return [expected + reference.decode(), actual + decoder.end()];
}

/** `bytes` cut at every place into two chunks, and into chunks of 1 to 4 bytes. */
function cuts(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [];
  for (let at = 0; at <= bytes.length; at++) all.push([bytes.subarray(0, at), bytes.subarray(at)]);
  for (let size = 1; size <= 4; size++) {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    all.push(chunks);
  }
  return all;
}

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("Utf8ChunkDecoder gives TextDecoder's stream-mode text however the bytes are cut", () => {
  const samples = [
    encode("data: héllo ✓ 😀\n\ndata: [DONE]\n\n"),
    encode("\uFEFFdata: a\n\n"), // a BOM at the start
    encode("a\uFEFFb\n"), // one later, which a cut may put at the start of a chunk
    encode("a\u00e9\n\uFEFFb\n"),
    encode("\uFEFF\uFEFFx\n"),
    new Uint8Array([0x61, 0xe2, 0x82, 0x0a, 0xff, 0x62, 0xf0, 0x9f, 0x98]), // malformed and cut short
    new Uint8Array([0xef, 0xbb, 0xbf]), // a BOM alone
  ];
  for (const bytes of samples) {
    for (const chunks of cuts(bytes)) {
      const [expected, actual] = bothWays(chunks);
      assert.equal(actual, expected, `${bytes} cut as ${chunks.map((chunk) => chunk.length)}`);
    }
  }
});

Deno.test("Utf8ChunkDecoder takes empty chunks and a new text after end()", () => {
  const decoder = new Utf8ChunkDecoder();
  assert.equal(decoder.decode(new Uint8Array()), "");
  assert.equal(decoder.decode(encode("\uFEFFé").subarray(0, 4)), "");
  assert.equal(decoder.decode(new Uint8Array()), "");
  assert.equal(decoder.decode(encode("é\n").subarray(1)), "é\n");
  assert.equal(decoder.end(), "");
  assert.equal(decoder.decode(encode("\uFEFFnew\n")), "new\n");
});
