import assert from "node:assert/strict";
import type { Timers } from "../core/mod.ts";
import { HttpAttempt } from "./_http.ts";
import type { ProviderError } from "./provider_error.ts";

/** Timers that never fire on their own: the test fires them by kind of limit. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  const timers: Timers = {
    set(callback, ms) {
      pending.set(next, { callback, ms });
      return next++;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
  };
  const fire = (ms: number) => {
    for (const [id, timer] of pending) {
      if (timer.ms === ms) {
        pending.delete(id);
        timer.callback();
      }
    }
  };
  return { timers, fire, pending };
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

Deno.test("HttpAttempt: the read timer restarts per chunk and ends a stalled body", async () => {
  const { timers, fire } = manualTimers();
  const attempt = new HttpAttempt(TIMEOUTS, undefined, (text) => text, timers);
  let push!: (chunk: Uint8Array) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => controller.enqueue(chunk);
    },
  });
  const response = await attempt.send(() => Promise.resolve(new Response(body)), "http://x/", {});
  const text = attempt.text(response, 1024);
  push(new TextEncoder().encode("partial"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  fire(30000);
  await assert.rejects(
    text,
    (error: ProviderError) =>
      error.code === "timeout" && /No response data for 30000 ms/.test(error.message),
  );
  attempt.dispose();
});
