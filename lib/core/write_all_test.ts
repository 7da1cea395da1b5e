import assert from "node:assert/strict";
import { writeAll } from "./write_all.ts";

Deno.test("writeAll() keeps writing until a writer that takes a few bytes at a time has all", async () => {
  const taken: number[] = [];
  const writer = {
    write(bytes: Uint8Array) {
      const count = Math.min(3, bytes.length);
      taken.push(...bytes.subarray(0, count));
      return Promise.resolve(count);
    },
  };
  await writeAll(writer, "héllo, wörld");
  assert.equal(new TextDecoder().decode(new Uint8Array(taken)), "héllo, wörld");
  await writeAll(writer, new Uint8Array());
});
