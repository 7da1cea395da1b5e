import assert from "node:assert/strict";
import { compareIssues, copyOwn, formatBytes, isRecord, readStreamCapped, setOwn } from "./mod.ts";

Deno.test("isRecord() accepts objects only: not null, arrays or primitives", () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord(Object.create(null)), true);
  for (const value of [null, undefined, [], "x", 1, true]) assert.equal(isRecord(value), false);
});

Deno.test("setOwn() and copyOwn() keep __proto__ an own key and never touch the prototype", () => {
  const target: Record<string, unknown> = {};
  setOwn(target, "__proto__", { polluted: true });
  assert.equal(Object.getPrototypeOf(target), Object.prototype);
  assert.deepEqual(Object.keys(target), ["__proto__"]);
  const source = JSON.parse('{"__proto__": {"x": 1}, "$schema": "s", "a": 2}');
  const copy = copyOwn(source, (key) => key === "$schema");
  assert.deepEqual(Object.keys(copy), ["__proto__", "a"]);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("formatBytes() names limits exactly", () => {
  assert.equal(formatBytes(16 * 1024 * 1024), "16 MiB");
  assert.equal(formatBytes(256 * 1024), "256 KiB");
  assert.equal(formatBytes(1500), "1500 bytes");
  assert.equal(formatBytes(0), "0 bytes");
});

Deno.test("readStreamCapped() stops reading as soon as the cap is passed and cancels the source", async () => {
  let pulled = 0;
  let cancelled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(1024));
    },
    cancel() {
      cancelled = true;
    },
  });
  await assert.rejects(
    readStreamCapped(endless, { maxBytes: 4096, tooLarge: () => new RangeError("too big") }),
    RangeError,
  );
  assert.ok(pulled <= 8, `read ${pulled} chunks`);
  assert.equal(cancelled, true);
  const small = new Blob(["abc", "def"]).stream();
  assert.equal(
    new TextDecoder().decode(
      await readStreamCapped(small, { maxBytes: 6, tooLarge: () => new Error("no") }),
    ),
    "abcdef",
  );
});

Deno.test("readStreamCapped() reads a ByteSource (an open file) within the cap, and refuses past it", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, "x".repeat(40_000));
    using file = await Deno.open(path);
    assert.equal(
      (await readStreamCapped(file, { maxBytes: 40_000, tooLarge: () => new Error("no") })).length,
      40_000,
    );
    using again = await Deno.open(path);
    await assert.rejects(
      readStreamCapped(again, { maxBytes: 39_999, tooLarge: () => new RangeError("too big") }),
      RangeError,
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("compareIssues() orders by path then the second key, by code point", () => {
  const issues = [
    { path: "/\u{1F600}", msg: "b" },
    { path: "/\uFFFD", msg: "b" },
    { path: "/\uFFFD", msg: "a" },
  ];
  assert.deepEqual(issues.sort(compareIssues((issue) => issue.msg)), [
    { path: "/\uFFFD", msg: "a" },
    { path: "/\uFFFD", msg: "b" },
    { path: "/\u{1F600}", msg: "b" },
  ]);
});
