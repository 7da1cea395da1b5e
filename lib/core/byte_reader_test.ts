import assert from "node:assert/strict";
import { byteReader } from "./byte_reader.ts";

async function readAll(reader: ReturnType<typeof byteReader>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  while (true) {
    const step = await reader.read();
    if (step.done) return chunks;
    chunks.push(step.value);
  }
}

const text = (chunks: Uint8Array[]) => chunks.map((chunk) => new TextDecoder().decode(chunk));

Deno.test("byteReader: a byte stream is read into the reader's one buffer, and every chunk is a copy to keep", async () => {
  const offered: number[] = [];
  const words = ["alpha", "beta", "gamma"];
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const view = controller.byobRequest!.view! as Uint8Array;
      offered.push(view.byteLength);
      const word = words.shift();
      if (word === undefined) {
        controller.close();
        controller.byobRequest!.respond(0);
        return;
      }
      const written = new TextEncoder().encodeInto(word, view).written;
      controller.byobRequest!.respond(written);
    },
  });
  const chunks = await readAll(byteReader(stream, { bufferBytes: 1024 }));
  // Kept chunks are intact after later reads wrote into the same buffer.
  assert.deepEqual(text(chunks), ["alpha", "beta", "gamma"]);
  assert.ok(offered.every((size) => size === 1024), `read sizes offered: ${offered}`);
  assert.ok(chunks.every((chunk) => chunk.buffer.byteLength === chunk.byteLength));
});

Deno.test("byteReader: more bytes than the buffer at once come in buffer-sized pieces, none lost", async () => {
  const data = new Uint8Array(40_000).map((_, i) => i % 251);
  const stream = new ReadableStream({
    type: "bytes",
    start(controller) {
      controller.enqueue(data.slice());
      controller.close();
    },
  });
  const chunks = await readAll(byteReader(stream, { bufferBytes: 16384 }));
  assert.deepEqual(chunks.map((chunk) => chunk.byteLength), [16384, 16384, 7232]);
  const joined = new Uint8Array(40_000);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  assert.deepEqual(joined, data);
});

Deno.test("byteReader: a plain stream of Uint8Array chunks is read as it is", async () => {
  const stream = ReadableStream.from(["one", "two"].map((word) => new TextEncoder().encode(word)));
  assert.deepEqual(text(await readAll(byteReader(stream))), ["one", "two"]);
});

Deno.test("byteReader: cancel ends a pending read and cancels the source", async () => {
  let cancelled: unknown;
  const stream = new ReadableStream({
    type: "bytes",
    pull: () => new Promise(() => {}), // never answers
    cancel(reason) {
      cancelled = reason;
    },
  });
  const reader = byteReader(stream);
  const pending = reader.read();
  await reader.cancel("stop");
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.equal(cancelled, "stop");
});

Deno.test("byteReader: a fetch body written in many small pieces arrives whole", async () => {
  const pieces = Array.from({ length: 200 }, (_, i) => `data: {"n":${i}}\n\n`);
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            for (const piece of pieces) {
              controller.enqueue(new TextEncoder().encode(piece));
              await new Promise((resolve) => setTimeout(resolve, 0));
            }
            controller.close();
          },
        }),
      ),
  );
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      signal: AbortSignal.timeout(10_000),
    });
    const chunks = await readAll(byteReader(response.body!));
    assert.equal(text(chunks).join(""), pieces.join(""));
    assert.ok(chunks.length > 1, "the body came in more than one read");
  } finally {
    stop.abort();
    await server.finished;
  }
});

Deno.test("byteReader: a ByteSource is read into one buffer without a stream, each chunk a copy", async () => {
  const words = ["alpha", "beta"];
  const offered: Uint8Array[] = [];
  const source = {
    read(buffer: Uint8Array): Promise<number | null> {
      offered.push(buffer);
      const word = words.shift();
      if (word === undefined) return Promise.resolve(null);
      return Promise.resolve(new TextEncoder().encodeInto(word, buffer).written);
    },
  };
  const chunks = await readAll(byteReader(source, { bufferBytes: 64 }));
  assert.deepEqual(text(chunks), ["alpha", "beta"]);
  assert.equal(offered.length, 3);
  assert.ok(offered.every((buffer) => buffer === offered[0]), "one buffer, reused");
  assert.equal(offered[0].byteLength, 64);
});

Deno.test("byteReader: cancelling a ByteSource's reader ends a read that is still pending", async () => {
  const source = { read: () => new Promise<number | null>(() => {}) };
  const reader = byteReader(source);
  const pending = reader.read();
  await reader.cancel();
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});

Deno.test("byteReader: with lend, each chunk is a view of the one buffer, valid until the next read", async () => {
  const words = ["alpha", "beta"];
  const source = {
    read(buffer: Uint8Array): Promise<number | null> {
      const word = words.shift();
      if (word === undefined) return Promise.resolve(null);
      return Promise.resolve(new TextEncoder().encodeInto(word, buffer).written);
    },
  };
  const reader = byteReader(source, { bufferBytes: 64, lend: true });
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), "alpha");
  const second = await reader.read();
  assert.equal(new TextDecoder().decode(second.value), "beta");
  assert.equal(first.value!.buffer, second.value!.buffer, "one buffer, lent twice");
  assert.equal(second.value!.buffer.byteLength, 64);
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});

Deno.test("byteReader: a ByteSource's failed read rejects the read, and reading goes on after", async () => {
  let calls = 0;
  const source = {
    read(buffer: Uint8Array): Promise<number | null> {
      calls++;
      if (calls === 1) return Promise.reject(new Error("EIO"));
      buffer[0] = 0x61;
      return Promise.resolve(calls === 2 ? 1 : null);
    },
  };
  const reader = byteReader(source);
  await assert.rejects(reader.read(), /EIO/);
  assert.deepEqual(text([(await reader.read()).value!]), ["a"]);
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});
