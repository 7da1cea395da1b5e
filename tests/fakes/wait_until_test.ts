import assert from "node:assert/strict";
import { waitUntil } from "./wait_until.ts";

Deno.test("waitUntil() returns once the check answers true, sync or async", async () => {
  let calls = 0;
  await waitUntil(() => ++calls === 3, "the third call", { intervalMs: 1 });
  assert.equal(calls, 3);
  let asyncCalls = 0;
  await waitUntil(() => Promise.resolve(++asyncCalls === 2), "the second call", { intervalMs: 1 });
  assert.equal(asyncCalls, 2);
});

Deno.test("waitUntil() fails naming what it waited for once its time is up", async () => {
  await assert.rejects(
    waitUntil(() => false, "a line that never comes", { timeoutMs: 20, intervalMs: 5 }),
    { message: "timed out waiting for a line that never comes" },
  );
});

Deno.test("waitUntil() ends at once with the error its check throws", async () => {
  let calls = 0;
  const check = () => {
    calls++;
    throw new RangeError("too many events");
  };
  await assert.rejects(waitUntil(check, "events", { timeoutMs: 60_000 }), RangeError);
  assert.equal(calls, 1);
});
