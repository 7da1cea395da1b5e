import assert from "node:assert/strict";
import { SerialWriter } from "./serial_writer.ts";

Deno.test("SerialWriter keeps writes whole and in order even with partial sink writes", async () => {
  const out: string[] = [];
  const writer = new SerialWriter(async (bytes) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    const part = bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
    out.push(new TextDecoder().decode(part));
    return part.length;
  });
  await Promise.all(["alpha\n", "beta\n", "gamma\n"].map((line) => writer.write(line)));
  assert.equal(out.join(""), "alpha\nbeta\ngamma\n");
});

Deno.test("SerialWriter never rejects when the stream is closed, and stops writing", async () => {
  let calls = 0;
  const writer = new SerialWriter(() => {
    calls++;
    return Promise.reject(new Deno.errors.BrokenPipe("closed"));
  });
  await writer.write("one\n");
  await writer.write("two\n");
  assert.equal(writer.stats.broken, true);
  assert.equal(calls, 1);
});

Deno.test("SerialWriter drops lines past its queue cap instead of growing memory", async () => {
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const writer = new SerialWriter(async (bytes) => {
    await blocked;
    return bytes.length;
  }, { maxQueuedBytes: 100 });
  const writes = Array.from({ length: 50 }, () => writer.write("x".repeat(10)));
  assert.equal(writer.stats.dropped, 40);
  release();
  await Promise.all(writes);
  assert.equal(writer.stats.written, 10);
});

Deno.test("SerialWriter.pendingBytes counts what is queued until it is written", async () => {
  let release!: () => void;
  const blocked = new Promise<void>((resolve) => (release = resolve));
  const writer = new SerialWriter(async (bytes) => {
    await blocked;
    return bytes.length;
  });
  assert.equal(writer.pendingBytes, 0);
  const done = writer.write("héllo\n");
  assert.equal(writer.pendingBytes, 7);
  release();
  await done;
  assert.equal(writer.pendingBytes, 0);
});
