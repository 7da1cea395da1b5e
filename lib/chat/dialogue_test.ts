import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import type { LanguageModel, StreamEvent } from "../llm/mod.ts";
import { ManualTimers } from "../../tests/fakes/manual_timers.ts";
import { mockLanguageModel, ProviderError } from "../llm/mod.ts";
import { dialogue, type DialogueEvent } from "./dialogue.ts";

const ANSWER = 'Hello <<<NOTES_JSON>>>{"set_goals":["g"]}<<<END_NOTES_JSON>>>there, friend.';
const REQUEST = {
  system: "s",
  messages: [{ role: "user" as const, content: "hi" }],
  tier: "DIALOGUE" as const,
  timeoutMs: 5_000,
};

async function run(model: LanguageModel, onText?: (text: string) => void) {
  const events: DialogueEvent[] = [];
  for await (const event of dialogue(REQUEST, { model, onText })) events.push(event);
  const done = events.at(-1);
  assert.equal(done?.type, "done");
  return { events, content: done.type === "done" ? done.content : "" };
}

Deno.test("dialogue: with onText, visible text is taken as it is decoded; without, it is yielded — the same text", async () => {
  for (const chunkSize of [1, 3, 7, 100]) {
    const model = () => mockLanguageModel(() => ANSWER, { chunkSize });
    const yielded = await run(model());
    const texts = yielded.events.flatMap((event) => event.type === "text" ? [event.text] : []);
    assert.equal(texts.join(""), "Hello there, friend.");
    assert.equal(yielded.content, "Hello there, friend.");

    const taken: string[] = [];
    const pushed = await run(model(), (text) => taken.push(text));
    const late = pushed.events.flatMap((event) => event.type === "text" ? [event.text] : []);
    assert.equal(taken.join("") + late.join(""), "Hello there, friend.", `chunks of ${chunkSize}`);
    assert.equal(pushed.content, "Hello there, friend.");
    assert.ok(pushed.events.some((event) => event.type === "notes"), "the NOTES block is parsed");
  }
});

Deno.test("dialogue: onText runs inside the model's onTextDelta call, before the stream moves on", async () => {
  const taken: string[] = [];
  const seenInside: number[] = [];
  const model: LanguageModel = {
    ...mockLanguageModel(() => ""),
    async *stream(request): AsyncGenerator<StreamEvent> {
      for (const piece of ["one ", "two ", "three"]) {
        request.onTextDelta(piece);
        seenInside.push(taken.length);
        await Promise.resolve();
      }
      yield { type: "finish", result: await mockLanguageModel(() => "one two three").generate({}) };
    },
  };
  const { content } = await run(model, (text) => taken.push(text));
  assert.deepEqual(seenInside, [1, 2, 3], "each piece was shown before the model went on");
  assert.deepEqual(taken, ["one ", "two ", "three"]);
  assert.equal(content, "one two three");
});

Deno.test("dialogue: the stream timeout fires on the given timers and ends the reply with STREAM_TIMEOUT", async () => {
  const timers = new ManualTimers();
  const model: LanguageModel = {
    ...mockLanguageModel(() => ""),
    // deno-lint-ignore require-yield
    async *stream(request): AsyncGenerator<StreamEvent> {
      request.onTextDelta("partial ");
      assert.deepEqual(timers.delays(), [5_000], "the reply's timeout waits on the given timers");
      timers.fire(5_000);
      throw request.signal?.reason;
    },
  };
  const events: DialogueEvent[] = [];
  for await (const event of dialogue(REQUEST, { model, timers })) events.push(event);
  assert.deepEqual(events.map((event) => event.type), ["text", "error", "done"]);
  assert.equal(events[1].type === "error" && events[1].code, "STREAM_TIMEOUT");
  assert.equal(timers.pending.size, 0);
});

/** A signal whose abort listeners are counted: `listening` holds those not removed. */
function watchedSignal() {
  const controller = new AbortController();
  const signal = controller.signal;
  const listening = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type: string, listener: unknown, options?: unknown) => {
    listening.add(listener);
    add(type, listener as EventListener, options as AddEventListenerOptions);
  };
  signal.removeEventListener = (type: string, listener: unknown, options?: unknown) => {
    listening.delete(listener);
    remove(type, listener as EventListener, options as EventListenerOptions);
  };
  return { controller, signal, listening };
}

Deno.test("dialogue: the caller's stop aborts the model request with its reason", async () => {
  const stop = watchedSignal();
  const reason = new DOMException("stopped by the user", "AbortError");
  const model: LanguageModel = {
    ...mockLanguageModel(() => ""),
    // deno-lint-ignore require-yield
    async *stream(request): AsyncGenerator<StreamEvent> {
      request.onTextDelta("partial ");
      assert.equal(request.signal?.aborted, false);
      stop.controller.abort(reason);
      assert.equal(request.signal?.reason, reason);
      throw request.signal?.reason;
    },
  };
  const timers = new ManualTimers();
  const events: DialogueEvent[] = [];
  for await (const event of dialogue({ ...REQUEST, signal: stop.signal }, { model, timers })) {
    events.push(event);
  }
  assert.deepEqual(events.map((event) => event.type), ["text", "done"]);
  assert.equal(events[1].type === "done" && events[1].stopped, true);
  assert.equal(timers.pending.size, 0, "the reply's timer is cleared");
});

Deno.test("dialogue: a finished reply leaves no listener on the caller's signal and no timer", async () => {
  const stop = watchedSignal();
  const timers = new ManualTimers();
  const model = mockLanguageModel(() => "fine");
  for await (const _ of dialogue({ ...REQUEST, signal: stop.signal }, { model, timers })) {
    assert.equal(stop.listening.size, 1, "the reply listens while it runs");
  }
  assert.equal(stop.listening.size, 0);
  assert.equal(timers.pending.size, 0);
});

Deno.test("dialogue: each model round is timed on the given clock", async () => {
  const clock = new FakeClock(1_000);
  const model: LanguageModel = {
    ...mockLanguageModel(() => ""),
    async *stream(request): AsyncGenerator<StreamEvent> {
      request.onTextDelta("slow");
      clock.current += 250;
      yield { type: "finish", result: await mockLanguageModel(() => "slow").generate({}) };
    },
  };
  const traced: Record<string, unknown>[] = [];
  const trace = (kind: string, data: Record<string, unknown>) => {
    if (kind === "llm_done") traced.push(data);
  };
  for await (const _ of dialogue(REQUEST, { model, clock, trace })) {
    // events are checked elsewhere
  }
  assert.deepEqual(traced, [{ round: 0, ms: 250 }]);
});

/** A dialogue's events, with every trace as `kind` and its data. */
async function collect(options: Parameters<typeof dialogue>[1]) {
  const events: DialogueEvent[] = [];
  const traces: [string, Record<string, unknown>][] = [];
  const trace = (kind: string, data: Record<string, unknown>) => traces.push([kind, data]);
  for await (const event of dialogue(REQUEST, { ...options, trace })) events.push(event);
  return { events, traces };
}

Deno.test("dialogue: tool rounds stop at maxToolRounds, each answered with the tool results", async () => {
  const call = '<<<TOOL_CALLS_JSON>>>[{"id":"t","tool":"echo"}]<<<END_TOOL_CALLS_JSON>>>';
  const model = mockLanguageModel(() => `Again ${call}`);
  const { events, traces } = await collect({
    model,
    maxToolRounds: 2,
    clock: new FakeClock(0),
    tools: (calls) =>
      Promise.resolve(
        calls.map(() => ({ id: "t", tool: "echo", ok: true, output: "x", error: null })),
      ),
  });
  assert.deepEqual(events.map((event) => event.type), [
    "text",
    "tool_call",
    "tool_result",
    "text",
    "tool_call",
    "tool_result",
    "text",
    "done",
  ]);
  const done = events.at(-1)!;
  assert.ok(done.type === "done" && done.rounds === 2 && done.content === "Again Again Again ");
  assert.deepEqual(traces.filter(([kind]) => kind === "tool_plan").map(([, data]) => data), [
    { round: 1, calls: 1, tools: ["echo"] },
    { round: 2, calls: 1, tools: ["echo"] },
    { round: 2, refused: "tool round limit reached" },
  ]);
  const last = model.calls.at(-1)!.messages!;
  assert.equal(last.length, 5);
  assert.deepEqual(last.at(-2), { role: "assistant", content: `Again ${call}` });
  assert.equal(
    last.at(-1)!.content,
    'TOOL_RESULTS (role=tool, one JSON per line):\n{"id":"t","tool":"echo","ok":true,"output":"x","error":null}',
  );
});

Deno.test("dialogue: an unavailable model falls back once; a failing one ends the reply", async () => {
  const down = () =>
    mockLanguageModel(() => {
      throw new ProviderError("network_error", "connection refused");
    });
  const fellBack = await collect({
    model: down(),
    fallback: mockLanguageModel(() => "From the template.", { chunkSize: 100 }),
    clock: new FakeClock(0),
  });
  assert.deepEqual(fellBack.events.map((event) => event.type), ["error", "text", "done"]);
  const [error, , done] = fellBack.events;
  assert.ok(error.type === "error" && error.code === "LLM_UNAVAILABLE");
  assert.equal(
    error.message,
    "The language model is unavailable (network_error); answering from the template backend",
  );
  assert.ok(done.type === "done" && done.fallback && done.content === "From the template.");
  assert.deepEqual(fellBack.traces.map(([kind, data]) => [kind, data.error]), [
    ["llm_req", undefined],
    ["llm_done", "network_error"],
    ["llm_req", undefined],
    ["llm_stream", undefined],
    ["llm_done", undefined],
  ]);

  const failed = await collect({ model: down(), fallback: down(), clock: new FakeClock(0) });
  assert.deepEqual(failed.events.map((event) => event.type), ["error", "error", "done"]);
  assert.ok(
    failed.events[1].type === "error" &&
      failed.events[1].message === "The language model failed: network_error",
  );
});
