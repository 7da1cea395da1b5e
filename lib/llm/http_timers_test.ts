import assert from "node:assert/strict";
import type { Timers } from "../core/mod.ts";
import { ManualTimers } from "../../tests/fakes/manual_timers.ts";
import { CallerAbort, HttpAttempt } from "./_http.ts";
import type { ProviderError } from "./provider_error.ts";
import type { Timeouts } from "./types.ts";

const TIMEOUTS = { connectMs: 5000, readMs: 30000, totalMs: 35000 };

/**
 * Hand-fired timers on a clock the test moves. Each timer notes when it is due, so the
 * test can wake the watchdog at its moment; `most` is the most timers ever pending at once.
 */
function handTimers() {
  const clock = { now: 0 };
  const manual = new ManualTimers();
  const due = new Map<unknown, number>();
  const counts = { sets: 0, most: 0 };
  const timers: Timers = {
    set(callback, ms) {
      const handle = manual.set(callback, ms);
      due.set(handle, clock.now + ms);
      counts.sets++;
      counts.most = Math.max(counts.most, manual.pending.size);
      return handle;
    },
    clear: (handle) => manual.clear(handle),
  };
  /** The delay the pending watchdog was set for; fails if more than one timer is pending. */
  const armed = (): number | undefined => {
    const delays = manual.delays();
    assert.ok(delays.length <= 1, `at most one timer pending, got ${delays}`);
    return delays[0];
  };
  /** When the pending watchdog is due, by the test's clock. */
  const dueAt = (): number | undefined => {
    armed();
    const [handle] = manual.pending.keys();
    return handle === undefined ? undefined : due.get(handle);
  };
  /** Moves the clock to the pending watchdog's moment and fires it. */
  const wake = () => {
    const at = dueAt();
    assert.ok(at !== undefined, "a watchdog is pending");
    assert.ok(at >= clock.now, `the watchdog was due at ${at}, before the clock's ${clock.now}`);
    clock.now = at;
    assert.equal(manual.fire(armed()!), 1);
    armed();
  };
  return { timers, clock, manual, counts, armed, dueAt, wake };
}

/** An attempt on hand timers and clock. */
function handAttempt(timeouts: Timeouts = TIMEOUTS, signal?: AbortSignal) {
  const hand = handTimers();
  const { timers, clock } = hand;
  const attempt = new HttpAttempt(timeouts, signal, (text) => text, timers, () => clock.now);
  return { ...hand, attempt };
}

/** A body the test pushes by hand. */
function handBody() {
  let enqueue!: (chunk: Uint8Array) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      enqueue = (chunk) => controller.enqueue(chunk);
    },
  });
  return { body, push: (text: string) => enqueue(new TextEncoder().encode(text)) };
}

/** An attempt whose response headers arrive at once (clock 0), its body pushed by hand. */
async function handStream(timeouts: Timeouts = TIMEOUTS) {
  const hand = handAttempt(timeouts);
  const { body, push } = handBody();
  const response = await hand.attempt.send(
    () => Promise.resolve(new Response(body)),
    "http://x/",
    {},
  );
  return { ...hand, response, push };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const timeout = (pattern: RegExp) => (error: ProviderError) =>
  error.code === "timeout" && pattern.test(error.message);

const hung: typeof fetch = () => new Promise(() => {});

Deno.test("HttpAttempt: one watchdog, due at the connect deadline, ends a hung fetch", async () => {
  const { attempt, armed, dueAt, wake, manual, counts } = handAttempt();
  const sent = attempt.send(hung, "http://127.0.0.1:1/", {});
  assert.equal(armed(), 5000, "one timer, for the connect deadline (before the total one)");
  assert.equal(dueAt(), 5000);
  wake();
  await assert.rejects(sent, timeout(/No response headers within 5000 ms$/));
  assert.equal(manual.pending.size, 0, "an expired attempt leaves nothing pending");
  attempt.dispose();
  assert.equal(manual.pending.size, 0);
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt: the connect deadline no longer applies once the headers arrived", async () => {
  const { attempt, clock, armed, dueAt, wake, manual, counts } = handAttempt();
  let respond!: (response: Response) => void;
  const fetcher: typeof fetch = () => new Promise((resolve) => respond = resolve);
  const sent = attempt.send(fetcher, "http://x/", {});
  clock.now = 1000;
  respond(new Response("late but in time"));
  const response = await sent;
  // Left set for the connect deadline: re-arming on the headers would cost a timer.
  assert.equal(dueAt(), 5000);
  wake(); // 5 s: the wait for headers is over, so only the total deadline is left
  assert.equal(manual.pending.size, 1, "the attempt did not expire");
  assert.equal(armed(), 30000, "re-armed for the total deadline at 35 s");
  assert.equal(await attempt.text(response, 1024), "late but in time");
  attempt.dispose();
  assert.equal(manual.pending.size, 0);
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt: the watchdog ends a body stalled for readMs", async () => {
  const { attempt, response, push, armed, dueAt, wake, manual, counts } = await handStream({
    ...TIMEOUTS,
    totalMs: 100000,
  });
  const text = attempt.text(response, 1024);
  await tick(); // the first read began at 0
  wake(); // 5 s: the connect deadline is gone; the read began at 0
  assert.equal(armed(), 25000, "re-armed for what is left of the read");
  assert.equal(dueAt(), 30000);
  push("partial");
  await tick(); // a second read begins at 5 s, due at 35 s: later than the watchdog
  assert.equal(dueAt(), 30000, "a read in time moves no timer");
  wake(); // 30 s: that read is 25 s old
  assert.equal(armed(), 5000);
  wake(); // 35 s: 30 s without data
  await assert.rejects(text, timeout(/No response data for 30000 ms$/));
  assert.equal(manual.pending.size, 0);
  attempt.dispose();
  assert.equal(manual.pending.size, 0, "nothing pending after dispose");
  assert.equal(counts.most, 1);
});

/**
 * `readBody` over a hand-pushed body: the chunks `take` was handed, and `nextChunk()`, which
 * settles once the next chunk has been taken (and the read after it begun).
 */
function readByHand(attempt: HttpAttempt, response: Response, limit: number) {
  const seen: string[] = [];
  let taken: (() => void) | undefined;
  const done = attempt.readBody(response, limit, (chunk) => {
    seen.push(new TextDecoder().decode(chunk));
    taken?.();
  });
  done.catch(() => {}); // asserted by the tests that expect a failure
  const nextChunk = () => new Promise<void>((resolve) => (taken = resolve));
  return { done, seen, nextChunk };
}

Deno.test("HttpAttempt.readBody: each chunk moves the read deadline on, and a silent body times out", async () => {
  const { attempt, response, push, clock, armed, dueAt, wake, manual, counts } = await handStream(
    { ...TIMEOUTS, totalMs: 300000 },
  );
  const reading = readByHand(attempt, response, 1024);
  wake(); // 5 s: the connect deadline is gone; the first read began at 0
  assert.equal(dueAt(), 30000);
  clock.now = 25000;
  const first = reading.nextChunk();
  push("a"); // in time; the next read begins as soon as the chunk is taken, at 25 s
  await first;
  wake(); // 30 s: this read is 5 s old
  assert.equal(armed(), 25000, "sleeps the 25 s left of the read");
  assert.equal(dueAt(), 55000);
  wake();
  await assert.rejects(reading.done, timeout(/No response data for 30000 ms$/));
  assert.deepEqual(reading.seen, ["a"]);
  attempt.dispose();
  assert.equal(manual.pending.size, 0);
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt.readBody: a stream of many chunks sets no timer per read", async () => {
  const { attempt, response, push, clock, dueAt, counts } = await handStream();
  const setsAfterSend = counts.sets;
  const reading = readByHand(attempt, response, 1 << 20);
  for (let i = 0; i < 200; i++) {
    clock.now += 10;
    const taken = reading.nextChunk();
    push("token");
    await taken;
  }
  assert.equal(reading.seen.length, 200);
  assert.equal(counts.sets, setsAfterSend, "200 reads, no timer set");
  assert.equal(dueAt(), 5000, "still the watchdog set on sending");
  attempt.dispose();
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt.readBody: the total deadline ends a body that keeps trickling", async () => {
  const { attempt, response, push, clock, armed, dueAt, wake, manual, counts } = await handStream();
  const reading = readByHand(attempt, response, 1024);
  wake(); // 5 s: the read began at 0, due at 30 s, before the total deadline at 35 s
  assert.equal(dueAt(), 30000);
  for (const at of [10000, 20000]) {
    clock.now = at;
    const taken = reading.nextChunk();
    push("drip");
    await taken; // the next read begins at once, at 10 s and then 20 s
  }
  wake(); // 30 s: the read began at 20 s, due at 50 s; the total deadline is sooner
  assert.equal(armed(), 5000);
  assert.equal(dueAt(), 35000);
  const taken = reading.nextChunk();
  push("drip");
  await taken;
  wake();
  await assert.rejects(reading.done, timeout(/Request took longer than 35000 ms$/));
  assert.deepEqual(reading.seen, ["drip", "drip", "drip"]);
  assert.equal(manual.pending.size, 0);
  attempt.dispose();
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt: a total deadline before the read deadline is the one that expires", async () => {
  const { attempt, response, armed, dueAt, wake, manual, counts } = await handStream({
    connectMs: 5000,
    readMs: 30000,
    totalMs: 20000,
  });
  const text = attempt.text(response, 1024);
  await tick();
  wake(); // 5 s: the read is due at 30 s, the total at 20 s
  assert.equal(armed(), 15000);
  assert.equal(dueAt(), 20000);
  wake();
  await assert.rejects(text, timeout(/Request took longer than 20000 ms$/));
  assert.equal(manual.pending.size, 0);
  attempt.dispose();
  assert.equal(counts.most, 1);
});

Deno.test("HttpAttempt: connect and total deadlines at the same moment report the total", async () => {
  // As when separate timers fired: the total one was set first and won the tie.
  const { attempt, armed, wake } = handAttempt({ connectMs: 3000, readMs: 3000, totalMs: 3000 });
  const sent = attempt.send(hung, "http://x/", {});
  assert.equal(armed(), 3000);
  wake();
  await assert.rejects(sent, timeout(/Request took longer than 3000 ms$/));
  attempt.dispose();
});

Deno.test("HttpAttempt.readBody: dispose clears the watchdog mid-body and no read sets another", async () => {
  const { attempt, response, push, manual, armed, wake, counts } = await handStream();
  const reading = readByHand(attempt, response, 1024);
  wake(); // 5 s: re-armed for the read
  assert.equal(armed(), 25000);
  const taken = reading.nextChunk();
  push("a");
  await taken; // a second read is in flight
  const setsBefore = counts.sets;
  attempt.dispose();
  assert.equal(manual.pending.size, 0, "dispose cleared the watchdog");
  await assert.rejects(reading.done); // the read in flight ends at once
  assert.deepEqual(reading.seen, ["a"]);
  assert.equal(manual.pending.size, 0, "no timer set after dispose");
  assert.equal(counts.sets, setsBefore);
});

Deno.test("HttpAttempt: a caller's abort clears the watchdog and is not a timeout", async () => {
  const caller = new AbortController();
  const { attempt, manual, armed } = handAttempt(TIMEOUTS, caller.signal);
  const sent = attempt.send(hung, "http://x/", {});
  assert.equal(armed(), 5000);
  caller.abort("stop");
  await assert.rejects(sent, (error) => error instanceof CallerAbort && error.reason === "stop");
  assert.equal(manual.pending.size, 0);
  attempt.dispose();
});

Deno.test("HttpAttempt: a watchdog that wakes early sleeps at least 1 ms more", async () => {
  // A real timer may run a fraction of a millisecond before the clock reaches its deadline.
  const { attempt, clock, manual, armed, wake } = handAttempt();
  const sent = attempt.send(hung, "http://x/", {});
  clock.now = 4999.75;
  assert.equal(manual.fire(5000), 1);
  assert.equal(armed(), 1, "not a 0.25 ms timer, and not expired yet");
  wake();
  await assert.rejects(sent, timeout(/No response headers within 5000 ms$/));
  attempt.dispose();
});
