import assert from "node:assert/strict";
import { runCommand } from "../../tests/fakes/cli_io.ts";
import { startTimer } from "./clock.ts";

/** Resolves with true when `fired` resolves within `ms`, false otherwise. */
function within(fired: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const guard = setTimeout(() => resolve(false), ms);
    fired.then(() => {
      clearTimeout(guard);
      resolve(true);
    });
  });
}

Deno.test("startTimer() calls back once after its delay", async () => {
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  const fired = new Promise<void>((resolve) =>
    startTimer(30, () => {
      calls++;
      elapsed = performance.now() - started;
      resolve();
    })
  );
  assert.ok(await within(fired, 5_000), "the timer never fired");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(calls, 1);
  // Not a speed check: a timer must not fire before its delay (1 ms of clock rounding).
  assert.ok(elapsed >= 29, `fired after ${elapsed} ms`);
});

Deno.test("startTimer() does nothing once cancelled", async () => {
  let calls = 0;
  const cancel = startTimer(10, () => calls++);
  cancel();
  cancel(); // twice is fine
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(calls, 0);
});

Deno.test("startTimer() takes a negative, fractional or NaN delay as setTimeout does, and cuts a huge one", async () => {
  for (const ms of [-5, 0.4, Number.NaN]) {
    const fired = new Promise<void>((resolve) => startTimer(ms, resolve));
    assert.ok(await within(fired, 5_000), `delay ${ms} never fired`);
  }
  // Beyond 2^31 − 1 ms AbortSignal.timeout would take it, setTimeout would not: cut, not thrown.
  startTimer(Number.POSITIVE_INFINITY, () => {})();
  startTimer(2 ** 40, () => {})();
});

/** Runs `code` (which may import `startTimer` from core) in a fresh process. */
async function runChild(code: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const core = new URL("./mod.ts", import.meta.url).href;
  return await runCommand([Deno.execPath()], [
    "eval",
    `import { startTimer } from ${JSON.stringify(core)};\n${code}`,
  ]);
}

Deno.test("a pending startTimer() keeps the process alive until it fires; a cancelled one does not", async () => {
  const pending = await runChild(`startTimer(100, () => console.log("fired"));`);
  assert.equal(pending.code, 0, pending.stderr);
  assert.equal(pending.stdout, "fired\n");
  // A cancelled timer of ten minutes must not hold the process: held, the child would outlive
  // CHILD_TIMEOUT_MS and be killed, failing the test.
  const cancelled = await runChild(
    `const cancel = startTimer(600_000, () => console.log("fired")); cancel(); console.log("done");`,
  );
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(cancelled.stdout, "done\n");
});
