import assert from "node:assert/strict";
import { onStopSignals } from "./_stop_signals.ts";

Deno.test("onStopSignals() calls stop on a listened signal until released", async () => {
  let stops = 0;
  const { promise, resolve } = Promise.withResolvers<void>();
  const release = onStopSignals(() => {
    stops++;
    resolve();
  }, ["SIGUSR2"]);
  // A second listener keeps the process from the signal's default action after release.
  const guard = () => {};
  Deno.addSignalListener("SIGUSR2", guard);
  try {
    Deno.kill(Deno.pid, "SIGUSR2");
    const timer = setTimeout(resolve, 5000);
    await promise;
    clearTimeout(timer);
    assert.equal(stops, 1);
    release();
    release();
    Deno.kill(Deno.pid, "SIGUSR2");
    await new Promise((done) => setTimeout(done, 200));
    assert.equal(stops, 1, "a released listener was still called");
  } finally {
    Deno.removeSignalListener("SIGUSR2", guard);
  }
});
