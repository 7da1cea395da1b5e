import assert from "node:assert/strict";
import { type LineRead, readLines, type ReadLinesOptions } from "./read_lines.ts";

/** The chunks as a stream, each read as it is given. */
function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(
    chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
  );
}

async function collect(
  input: ReadableStream<Uint8Array>,
  options: ReadLinesOptions | number,
): Promise<LineRead[]> {
  const reads: LineRead[] = [];
  const settings = typeof options === "number" ? { maxLineBytes: options } : options;
  for await (const read of readLines(input, settings)) reads.push(read);
  return reads;
}

Deno.test("readLines() splits lines across chunk boundaries and drops \\r", async () => {
  const lines = await collect(streamOf('{"a":', '1}\n{"b"', ":2}\r\n", "\n", "last"), 64);
  assert.deepEqual(lines, [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
    { kind: "line", text: "" },
    { kind: "line", text: "last" },
  ]);
});

Deno.test("readLines() keeps multi-byte characters split between chunks", async () => {
  const bytes = new TextEncoder().encode('"héllo ✓"\n');
  const lines = await collect(
    streamOf(bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)),
    64,
  );
  assert.deepEqual(lines, [{ kind: "line", text: '"héllo ✓"' }]);
});

Deno.test("readLines() accepts a line of exactly the cap and rejects one byte more", async () => {
  const lines = await collect(streamOf("x".repeat(16) + "\n" + "y".repeat(17) + "\nok\n"), 16);
  assert.deepEqual(lines, [
    { kind: "line", text: "x".repeat(16) },
    { kind: "oversize", bytes: 17, prefix: "y".repeat(17) },
    { kind: "line", text: "ok" },
  ]);
});

Deno.test("readLines() counts the cap in UTF-8 bytes, not characters", async () => {
  const lines = await collect(streamOf("é".repeat(9) + "\n"), 16);
  assert.equal(lines[0].kind, "oversize");
  assert.equal((lines[0] as { bytes: number }).bytes, 18);
});

Deno.test("readLines() discards an oversized line chunk by chunk and goes on", async () => {
  const big = Array.from({ length: 50 }, () => "z".repeat(1000));
  const lines = await collect(streamOf('{"id":1}\n', ...big, "\n", '{"id":2}\n'), 4096);
  assert.deepEqual(lines.map((line) => line.kind), ["line", "oversize", "line"]);
  assert.equal((lines[1] as { bytes: number }).bytes, 50_000);
  assert.equal((lines[1] as { prefix: string }).prefix.length, 256);
  assert.deepEqual(lines[2], { kind: "line", text: '{"id":2}' });
});

Deno.test("readLines() reports an oversized last line without a newline", async () => {
  const lines = await collect(streamOf("a".repeat(40)), 16);
  assert.deepEqual(lines.map((line) => line.kind), ["oversize"]);
});

/**
 * A `ByteSource` (as stdin is read) that writes each chunk into the one buffer it is
 * given: a line kept across reads must have been copied out of it.
 */
function sourceOf(
  ...chunks: (string | Uint8Array)[]
): { read(buffer: Uint8Array): Promise<number | null> } {
  const encoder = new TextEncoder();
  return {
    read(buffer) {
      const chunk = chunks.shift();
      if (chunk === undefined) return Promise.resolve(null);
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
      buffer.fill(0x7a); // what a later read leaves behind
      buffer.set(bytes);
      return Promise.resolve(bytes.length);
    },
  };
}

Deno.test("readLines() over a source that reuses its buffer: whole lines, split lines, several per read", async () => {
  const bytes = new TextEncoder().encode('"é✓"\n');
  const lines: LineRead[] = [];
  const source = sourceOf(
    '{"a":1}\n',
    '{"b":2}\r\n',
    '{"c":',
    '3}\n{"d":4}\n{"e"',
    ":5}\n",
    bytes.subarray(0, 2),
    bytes.subarray(2),
    "\n",
    "x".repeat(16) + "\n",
    "y".repeat(17) + "\n",
    "tail",
  );
  for await (const line of readLines(source, { maxLineBytes: 16 })) lines.push(line);
  assert.deepEqual(lines, [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
    { kind: "line", text: '{"c":3}' },
    { kind: "line", text: '{"d":4}' },
    { kind: "line", text: '{"e":5}' },
    { kind: "line", text: '"é✓"' },
    { kind: "line", text: "" },
    { kind: "line", text: "x".repeat(16) },
    { kind: "oversize", bytes: 17, prefix: "y".repeat(17) },
    { kind: "line", text: "tail" },
  ]);
});

Deno.test("readLines() counts a whole-line read's \\r against the cap, as a split line's", async () => {
  const lines: LineRead[] = [];
  const source = sourceOf("x".repeat(15) + "\r\n", "y".repeat(16) + "\r\n", "\r\n");
  for await (const line of readLines(source, { maxLineBytes: 16 })) lines.push(line);
  assert.deepEqual(lines, [
    { kind: "line", text: "x".repeat(15) },
    { kind: "oversize", bytes: 17, prefix: "y".repeat(16) + "\r" },
    { kind: "line", text: "" },
  ]);
  assert.deepEqual(
    await collect(streamOf("x".repeat(15) + "\r\n", "y".repeat(16) + "\r\n"), 16),
    lines.slice(0, 2),
  );
});

Deno.test("readLines() yields blank lines, drops a \\r and a byte order mark at a line's start", async () => {
  const reads = await collect(streamOf("\ufeffa\r\n\nb", "\n\ufeffc"), { maxLineBytes: 16 });
  assert.deepEqual(reads.map((read) => read.kind === "line" && read.text), ["a", "", "b", "c"]);
});

Deno.test("readLines() with fatal reports a line that is not UTF-8 and reads on", async () => {
  const bad = new Uint8Array([0x61, 0xff, 0x0a]);
  const reads = await collect(streamOf(bad, "ok\n", "x", new Uint8Array([0xc3]), "\n"), {
    maxLineBytes: 16,
    fatal: true,
  });
  assert.deepEqual(reads, [
    { kind: "undecodable", bytes: 2 },
    { kind: "line", text: "ok" },
    { kind: "undecodable", bytes: 2 },
  ]);
  const lenient = await collect(streamOf(bad), { maxLineBytes: 16 });
  assert.deepEqual(lenient, [{ kind: "line", text: "a\ufffd" }]);
});

Deno.test("readLines() with maxBytes ends with over_limit after the chunk that passes it", async () => {
  const reads = await collect(streamOf("one\ntwo\n", "three\nfo", "ur\n"), {
    maxLineBytes: 16,
    maxBytes: 10,
  });
  assert.deepEqual(reads, [
    { kind: "line", text: "one" },
    { kind: "line", text: "two" },
    { kind: "line", text: "three" },
    { kind: "over_limit", bytes: 16 },
  ]);
});

Deno.test("readLines() stops at an abort, though the stream never ends", async () => {
  const controller = new AbortController();
  const limit = AbortSignal.timeout(5_000); // a broken abort fails the test, not hangs it
  const input = new ReadableStream<Uint8Array>({
    start(streamController) {
      streamController.enqueue(new TextEncoder().encode("first\npart"));
    },
  });
  const reads: LineRead[] = [];
  const signal = AbortSignal.any([controller.signal, limit]);
  for await (const read of readLines(input, { maxLineBytes: 16, signal })) {
    reads.push(read);
    controller.abort();
  }
  assert.equal(limit.aborted, false, "ended by the time limit, not by the abort");
  assert.deepEqual(reads, [{ kind: "line", text: "first" }]);
});
