import assert from "node:assert/strict";
import { mapBounded } from "./map_bounded.ts";

Deno.test("mapBounded() keeps the order and never runs more than jobs at once", async () => {
  let running = 0;
  let most = 0;
  const results = await mapBounded([5, 1, 4, 2, 3], async (delay, index) => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, delay));
    running--;
    return `${index}:${delay}`;
  }, { jobs: 2 });
  assert.deepEqual(results, ["0:5", "1:1", "2:4", "3:2", "4:3"]);
  assert.equal(most, 2);
  assert.deepEqual(await mapBounded([], () => Promise.resolve(1), { jobs: 3 }), []);
  await assert.rejects(mapBounded([1], () => Promise.reject(new Error("x")), { jobs: 0 }), /x/);
});
