import assert from "node:assert/strict";
import { MAX_LINE_BYTES, type NdjsonLine, peekRequestId, readNdjsonLines } from "./ndjson.ts";

Deno.test("readNdjsonLines() caps a line at MAX_LINE_BYTES unless told otherwise", async () => {
  const text = "x".repeat(MAX_LINE_BYTES) + "\n" + "y".repeat(MAX_LINE_BYTES + 1) + "\nok\n";
  const lines: NdjsonLine[] = [];
  for await (const line of readNdjsonLines(new Blob([text]).stream())) lines.push(line);
  assert.deepEqual(lines.map((line) => line.kind), ["line", "oversize", "line"]);
  assert.deepEqual(lines[2], { kind: "line", text: "ok" });
});

Deno.test("peekRequestId() reads only an id at the very start of the object", () => {
  assert.equal(peekRequestId('{"jsonrpc":"2.0","id":42,"method":"x"'), 42);
  assert.equal(peekRequestId('{ "id" : "abc", "jsonrpc":"2.0"'), "abc");
  assert.equal(peekRequestId('{"jsonrpc":"2.0","method":"x","id":1'), null);
  assert.equal(peekRequestId('{"params":{"id":3}'), null);
  assert.equal(peekRequestId('{"id":12'), null, "a number cut off by the prefix is unsafe");
  assert.equal(peekRequestId("garbage"), null);
});
