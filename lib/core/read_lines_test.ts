import assert from "node:assert/strict";
import { type LineRead, readLines, type ReadLinesOptions } from "./read_lines.ts";

function stream(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
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
  input: ReadableStream<Uint8Array>,
  options: ReadLinesOptions,
): Promise<LineRead[]> {
  const reads: LineRead[] = [];
  for await (const read of readLines(input, options)) reads.push(read);
  return reads;
}

Deno.test("readLines() yields blank lines, drops a \\r and a byte order mark at a line's start", async () => {
  const reads = await collect(stream("\ufeffa\r\n\nb", "\n\ufeffc"), { maxLineBytes: 16 });
  assert.deepEqual(reads.map((read) => read.kind === "line" && read.text), ["a", "", "b", "c"]);
});

Deno.test("readLines() with fatal reports a line that is not UTF-8 and reads on", async () => {
  const bad = new Uint8Array([0x61, 0xff, 0x0a]);
  const reads = await collect(stream(bad, "ok\n", "x", new Uint8Array([0xc3]), "\n"), {
    maxLineBytes: 16,
    fatal: true,
  });
  assert.deepEqual(reads, [
    { kind: "undecodable", bytes: 2 },
    { kind: "line", text: "ok" },
    { kind: "undecodable", bytes: 2 },
  ]);
  const lenient = await collect(stream(bad), { maxLineBytes: 16 });
  assert.deepEqual(lenient, [{ kind: "line", text: "a\ufffd" }]);
});

Deno.test("readLines() with maxBytes ends with over_limit after the chunk that passes it", async () => {
  const reads = await collect(stream("one\ntwo\n", "three\nfo", "ur\n"), {
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
