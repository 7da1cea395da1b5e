import assert from "node:assert/strict";
import { type NdjsonLine, peekRequestId, readNdjsonLines } from "./ndjson.ts";

function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes?: number,
): Promise<NdjsonLine[]> {
  const lines: NdjsonLine[] = [];
  for await (const line of readNdjsonLines(stream, { maxLineBytes })) lines.push(line);
  return lines;
}

Deno.test("readNdjsonLines() splits lines across chunk boundaries and drops \\r", async () => {
  const lines = await collect(streamOf('{"a":', '1}\n{"b"', ":2}\r\n", "\n", "last"));
  assert.deepEqual(lines, [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
    { kind: "line", text: "" },
    { kind: "line", text: "last" },
  ]);
});

Deno.test("readNdjsonLines() keeps multi-byte characters split between chunks", async () => {
  const bytes = new TextEncoder().encode('"héllo ✓"\n');
  const lines = await collect(
    streamOf(bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)),
  );
  assert.deepEqual(lines, [{ kind: "line", text: '"héllo ✓"' }]);
});

Deno.test("readNdjsonLines() accepts a line of exactly the cap and rejects one byte more", async () => {
  const lines = await collect(streamOf("x".repeat(16) + "\n" + "y".repeat(17) + "\nok\n"), 16);
  assert.deepEqual(lines, [
    { kind: "line", text: "x".repeat(16) },
    { kind: "oversize", bytes: 17, prefix: "y".repeat(17) },
    { kind: "line", text: "ok" },
  ]);
});

Deno.test("readNdjsonLines() counts the cap in UTF-8 bytes, not characters", async () => {
  const lines = await collect(streamOf("é".repeat(9) + "\n"), 16);
  assert.equal(lines[0].kind, "oversize");
  assert.equal((lines[0] as { bytes: number }).bytes, 18);
});

Deno.test("readNdjsonLines() discards an oversized line chunk by chunk and goes on", async () => {
  const big = Array.from({ length: 50 }, () => "z".repeat(1000));
  const lines = await collect(streamOf('{"id":1}\n', ...big, "\n", '{"id":2}\n'), 4096);
  assert.deepEqual(lines.map((line) => line.kind), ["line", "oversize", "line"]);
  assert.equal((lines[1] as { bytes: number }).bytes, 50_000);
  assert.equal((lines[1] as { prefix: string }).prefix.length, 256);
  assert.deepEqual(lines[2], { kind: "line", text: '{"id":2}' });
});

Deno.test("readNdjsonLines() reports an oversized last line without a newline", async () => {
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

Deno.test("readNdjsonLines() over a source that reuses its buffer: whole lines, split lines, several per read", async () => {
  const bytes = new TextEncoder().encode('"é✓"\n');
  const lines: NdjsonLine[] = [];
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
  for await (const line of readNdjsonLines(source, { maxLineBytes: 16 })) lines.push(line);
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

Deno.test("readNdjsonLines() counts a whole-line read's \\r against the cap, as a split line's", async () => {
  const lines: NdjsonLine[] = [];
  const source = sourceOf("x".repeat(15) + "\r\n", "y".repeat(16) + "\r\n", "\r\n");
  for await (const line of readNdjsonLines(source, { maxLineBytes: 16 })) lines.push(line);
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

Deno.test("peekRequestId() reads only an id at the very start of the object", () => {
  assert.equal(peekRequestId('{"jsonrpc":"2.0","id":42,"method":"x"'), 42);
  assert.equal(peekRequestId('{ "id" : "abc", "jsonrpc":"2.0"'), "abc");
  assert.equal(peekRequestId('{"jsonrpc":"2.0","method":"x","id":1'), null);
  assert.equal(peekRequestId('{"params":{"id":3}'), null);
  assert.equal(peekRequestId('{"id":12'), null, "a number cut off by the prefix is unsafe");
  assert.equal(peekRequestId("garbage"), null);
});
