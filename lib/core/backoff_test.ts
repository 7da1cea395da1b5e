import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { backoffDelay, LABS_BACKOFF } from "./backoff.ts";

Deno.test("backoffDelay() doubles from 200 ms and caps at 5 s (no jitter at random()=0)", () => {
  const delays = [0, 1, 2, 3, 4, 5, 6].map((retry) =>
    backoffDelay(retry, { ...LABS_BACKOFF, random: () => 0 })
  );
  assert.deepEqual(delays, [200, 400, 800, 1600, 3200, 5000, 5000]);
});

Deno.test("backoffDelay() jitter only shortens the delay", () => {
  assert.equal(backoffDelay(0, { ...LABS_BACKOFF, random: () => 1 }), 160);
  assert.equal(backoffDelay(5, { ...LABS_BACKOFF, random: () => 0.5 }), 4500);
});

Deno.test("FakeClock.sleep() records delays and advances time", async () => {
  const clock = new FakeClock(1000);
  await clock.sleep(200);
  await clock.sleep(400);
  assert.deepEqual(clock.sleeps, [200, 400]);
  assert.equal(clock.now(), 1600);
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(clock.sleep(1, controller.signal), /stop/);
});
