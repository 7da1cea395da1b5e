import assert from "node:assert/strict";
import { ManualTimers } from "../../tests/fakes/manual_timers.ts";
import { HttpAttempt } from "./_http.ts";
import type { ProviderError } from "./provider_error.ts";

/** Hand-fired timers, as the tests below take them apart. */
function manualTimers() {
  const timers = new ManualTimers();
  return { timers, fire: (ms: number) => timers.fire(ms), pending: timers.pending };
}

const TIMEOUTS = { connectMs: 5000, readMs: 30000, totalMs: 35000 };

Deno.test("HttpAttempt: an expired connect timer ends a hung fetch as a timeout, no real wait", async () => {
  const { timers, fire, pending } = manualTimers();
  const attempt = new HttpAttempt(TIMEOUTS, undefined, (text) => text, timers);
  const hung: typeof fetch = () => new Promise(() => {});
  const sent = attempt.send(hung, "http://127.0.0.1:1/", {});
  assert.deepEqual([...pending.values()].map((t) => t.ms).sort(), [35000, 5000].sort());
  fire(5000);
  await assert.rejects(
    sent,
    (error: ProviderError) =>
      error.code === "timeout" && /No response headers within 5000 ms/.test(error.message),
  );
  attempt.dispose();
  assert.equal(pending.size, 0, "every timer is cleared");
});

/** An attempt on hand-made timers and clock, its response a body the test pushes by hand. */
async function handStream() {
  const { timers, fire, pending } = manualTimers();
  const clock = { now: 0 };
  const attempt = new HttpAttempt(TIMEOUTS, undefined, (text) => text, timers, () => clock.now);
  let enqueue!: (chunk: Uint8Array) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      enqueue = (chunk) => controller.enqueue(chunk);
    },
  });
  const response = await attempt.send(() => Promise.resolve(new Response(body)), "http://x/", {});
  const push = (text: string) => enqueue(new TextEncoder().encode(text));
  return { attempt, response, push, fire, pending, clock };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("HttpAttempt: the read watchdog ends a body stalled for readMs", async () => {
  const { attempt, response, push, fire, pending, clock } = await handStream();
  const text = attempt.text(response, 1024);
  push("partial");
  await tick();
  clock.now += 30000;
  fire(30000);
  await assert.rejects(
    text,
    (error: ProviderError) =>
      error.code === "timeout" && /No response data for 30000 ms/.test(error.message),
  );
  attempt.dispose();
  assert.equal(pending.size, 0, "every timer is cleared");
});

Deno.test("HttpAttempt: a chunk restarts the read wait; the watchdog sleeps for what is left", async () => {
  const { attempt, response, push, fire, pending, clock } = await handStream();
  const chunks = attempt.chunks(response, 1024);
  const first = chunks.next();
  clock.now = 25000;
  push("a"); // 25 s after the read began: in time
  assert.equal((await first).done, false);
  const second = chunks.next(); // the next read begins at 25 s
  await tick();
  clock.now = 30000;
  fire(30000); // the watchdog finds this read 5 s old: it sleeps 25 s more
  assert.deepEqual([...pending.values()].map((timer) => timer.ms).sort(), [25000, 35000]);
  clock.now = 54000;
  push("b");
  assert.equal((await second).done, false);
  // The consumer holds the body for 40 s with no read in flight: not a stalled body.
  clock.now = 94000;
  fire(25000);
  assert.deepEqual([...pending.values()].map((timer) => timer.ms).sort(), [30000, 35000]);
  const third = chunks.next();
  await tick();
  clock.now = 124000;
  fire(30000);
  await assert.rejects(third, (error: ProviderError) => error.code === "timeout");
  attempt.dispose();
  assert.equal(pending.size, 0, "every timer is cleared");
});
