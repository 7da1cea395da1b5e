/**
 * The chat gateway driven by a real WebSocket client, against a mock provider speaking
 * the real OpenAI / Anthropic streaming wire on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { gatewayFixture, type TestSocket, type WireEvent } from "./fakes/chat_gateway.ts";
import { ShiftedClock } from "./fakes/fake_clock.ts";
import { ManualTimers } from "./fakes/manual_timers.ts";
import { waitUntil } from "./fakes/wait_until.ts";

function checkReply(events: WireEvent[]): { content: string; chunks: WireEvent[] } {
  assert.deepEqual(
    events.map((event) => event.sequence),
    events.map((_, i) => i + 1),
    "sequences are 1..n",
  );
  assert.equal(events.filter((event) => event.event_type === "done").length, 1, "exactly one done");
  assert.equal(events.at(-1)!.event_type, "done", "done is last");
  const chunks = events.filter((event) => event.event_type === "chunk");
  const message = events.find((event) => event.event_type === "message");
  assert.ok(message, "a message event");
  assert.equal(
    chunks.map((chunk) => chunk.payload.content).join(""),
    message.payload.content,
    "concat(chunks) == message",
  );
  assert.equal(
    events.at(-1)!.payload.total_chunks,
    chunks.length,
    "total_chunks counts the chunks sent",
  );
  assert.equal(typeof message.payload.turn_id, "string");
  return { content: String(message.payload.content), chunks };
}

/**
 * Waits until `observer` is registered with its session: `perturber` (a /perturb socket of the
 * same session) sends a `stop` for an unknown reply, whose refusal goes to the session's
 * observers only — again until one arrives.
 */
async function registered(observer: TestSocket, perturber: TestSocket, probe: string) {
  await waitUntil(() => {
    if (observer.of(probe).length > 0) return true;
    perturber.send({ action: "stop", version: "1.0.0", data: { correlation_id: probe } });
    return false;
  }, `${probe} to reach its observer`);
}

for (const provider of ["openai", "anthropic"] as const) {
  Deno.test({
    name: `gateway streams a reply over /chat (${provider} wire)`,
    async fn() {
      await using fixture = await gatewayFixture({ provider });
      const socket = await fixture.ws("/chat/kgent?session=s1");
      socket.message("What should I focus on?", "c1");
      await socket.done("c1");
      const { content, chunks } = checkReply(socket.of("c1"));
      assert.equal(
        content,
        "You said: What should I focus on?. Here is a longer answer to stream.",
      );
      assert.ok(chunks.length > 1 && chunks.length < 20, `chunks coalesced: ${chunks.length}`);
    },
  });
}

Deno.test({
  name: "gateway pairs /perturb and /observe by session",
  async fn() {
    await using fixture = await gatewayFixture();
    const observe = await fixture.ws("/observe/kgent?session=pair");
    const other = await fixture.ws("/observe/kgent?session=other");
    const perturb = await fixture.ws("/perturb/kgent?session=pair");
    const otherPerturb = await fixture.ws("/perturb/kgent?session=other");
    await registered(observe, perturb, "probe-pair");
    await registered(other, otherPerturb, "probe-other");
    perturb.message("hello", "c1");
    await observe.done("c1");
    checkReply(observe.of("c1"));
    assert.deepEqual(perturb.events, []);
    assert.deepEqual(otherPerturb.events, []);
    assert.ok(
      other.events.every((event) => event.payload.correlation_id === "probe-other"),
      JSON.stringify(other.events),
    );
    assert.ok(
      observe.events.every((event) =>
        ["c1", "probe-pair"].includes(String(event.payload.correlation_id))
      ),
    );
  },
});

Deno.test({
  name: "gateway answers bad frames with one INVALID_MESSAGE, no done, and keeps the socket",
  async fn() {
    await using fixture = await gatewayFixture();
    const socket = await fixture.ws("/chat/kgent?session=bad");
    // Each frame with the correlation id its refusal carries (none when it cannot be read).
    const frames: [unknown, string][] = [
      ["not json", ""],
      [{ action: "message", version: "0.9", data: { content: "hi", correlation_id: "x1" } }, "x1"],
      [
        { action: "message", version: "1.0.0", data: { content: "   ", correlation_id: "x2" } },
        "x2",
      ],
      [{ action: "dance", version: "1.0.0", data: { correlation_id: "x3" } }, "x3"],
      [{
        action: "message",
        version: "1.0.0",
        data: { content: "hi", mode: "shout", correlation_id: "x4" },
      }, "x4"],
      [
        JSON.stringify({
          action: "message",
          version: "1.0.0",
          data: { content: "a".repeat(1024 * 1024 + 10), correlation_id: "x5" },
        }),
        "",
      ],
      [{ action: "stop", version: "1.0.0", data: { correlation_id: "nope" } }, "nope"],
      [{ action: "stop", version: "1.0.0", data: {} }, ""],
      [{ action: "resume", data: { correlation_id: "x6", after_sequence: -1 } }, "x6"],
    ];
    for (const [frame] of frames) socket.send(frame);
    // Frames are handled in order and a refusal is sent at once: once the reply to a later
    // message is done, every answer to the bad frames has arrived.
    socket.message("still there?", "ok1");
    await socket.done("ok1");
    checkReply(socket.of("ok1"));
    const refusals = socket.events.filter((event) => event.payload.correlation_id !== "ok1");
    assert.equal(refusals.length, frames.length, JSON.stringify(socket.events));
    assert.ok(
      refusals.every((event) =>
        event.event_type === "error" && event.payload.code === "INVALID_MESSAGE"
      ),
    );
    assert.deepEqual(
      refusals.map((event) => event.payload.correlation_id),
      frames.map(([, correlationId]) => correlationId),
    );
    for (const [, correlationId] of frames) {
      assert.equal(await fixture.gateway.replyFinished("bad", correlationId), false, correlationId);
    }
    assert.match(
      String(socket.of("x6")[0].payload.message),
      /^Invalid frame: \/data\/after_sequence: /,
    );
  },
});

Deno.test({
  name: "gateway stop ends the reply with done.stopped and cancels the provider request",
  async fn() {
    await using fixture = await gatewayFixture({ frameDelayMs: 30, chunkSize: 2 });
    const socket = await fixture.ws("/chat/kgent?session=stop");
    socket.message("tell me a long story", "c1");
    await socket.until(
      () => socket.of("c1").some((event) => event.event_type === "chunk"),
      "a first chunk",
    );
    socket.send({ action: "stop", version: "1.0.0", data: { correlation_id: "c1" } });
    await socket.done("c1");
    const events = socket.of("c1");
    checkReply(events);
    assert.equal(events.at(-1)!.payload.stopped, true);
    const message = events.find((event) => event.event_type === "message")!;
    assert.ok(
      String(message.payload.content).length <
        "You said: tell me a long story. Here is a longer answer to stream.".length,
    );
  },
});

Deno.test({
  name: "gateway: a disconnect does not cancel the reply, and resume loses nothing",
  async fn() {
    await using fixture = await gatewayFixture({ frameDelayMs: 15, chunkSize: 2 });
    const first = await fixture.ws("/chat/kgent?session=resume");
    first.message("do not lose me", "c1");
    await first.until(() => first.of("c1").length >= 2, "two events");
    const seen = first.of("c1").at(-1)!.sequence;
    await first.close();
    // The gateway has let go of the socket while the reply (about 35 frames, 15 ms apart)
    // still streams.
    await waitUntil(() => fixture.gateway.socketCount === 0, "the gateway to drop the socket");
    const second = await fixture.ws("/chat/kgent?session=resume");
    second.send({
      action: "resume",
      version: "1.0.0",
      data: { correlation_id: "c1", after_sequence: seen },
    });
    await second.done("c1");
    const all = [...first.of("c1"), ...second.of("c1")];
    const { content } = checkReply(all);
    assert.equal(content, "You said: do not lose me. Here is a longer answer to stream.");
    assert.equal(all.at(-1)!.payload.stopped, undefined, "the disconnect stopped the reply");
    assert.equal(second.of("c1")[0].sequence, seen + 1);
    const third = await fixture.ws("/chat/kgent?session=resume");
    third.send({ action: "resume", data: { correlation_id: "c1", after_sequence: 0 } });
    await third.done("c1");
    assert.deepEqual(third.of("c1"), all);
  },
});

Deno.test({
  name: "gateway: an empty budget gives RATE_LIMITED with retry_after_seconds and no done",
  async fn() {
    await using fixture = await gatewayFixture({ config: { entropy_budget: 0.0015 } });
    const socket = await fixture.ws("/chat/kgent?session=poor");
    socket.message("hi", "c1");
    await socket.done("c1");
    checkReply(socket.of("c1"));
    socket.message("again", "c2");
    await socket.until(() => socket.of("c2").length >= 1, "an error");
    // No reply was started for it, so nothing more can follow the error.
    assert.equal(await fixture.gateway.replyFinished("poor", "c2"), false);
    const refused = socket.of("c2");
    assert.equal(refused.length, 1);
    assert.equal(refused[0].payload.code, "RATE_LIMITED");
    assert.ok(Number(refused[0].payload.retry_after_seconds) >= 1);
  },
});

Deno.test({
  name: "gateway: an unavailable provider gives LLM_UNAVAILABLE, a template reply, then done",
  async fn() {
    await using fixture = await gatewayFixture({ fault: "401" });
    const socket = await fixture.ws("/chat/kgent?session=down");
    socket.message("hi", "c1");
    await socket.done("c1");
    const events = socket.of("c1");
    checkReply(events);
    assert.equal(
      events.find((event) => event.event_type === "error")?.payload.code,
      "LLM_UNAVAILABLE",
    );
    assert.match(
      String(events.find((event) => event.event_type === "message")!.payload.content),
      /^\[template reply\]/,
    );
  },
});

Deno.test({
  name: "gateway: a reply past stream_timeout gives STREAM_TIMEOUT, then done",
  async fn() {
    const sessionTimers = new ManualTimers();
    await using fixture = await gatewayFixture({
      frameDelayMs: 50,
      chunkSize: 1,
      config: { stream_timeout: 0.5 },
      sessionTimers,
    });
    const socket = await fixture.ws("/chat/kgent?session=slow");
    socket.message("hi", "c1");
    await socket.until(
      () => socket.of("c1").some((event) => event.event_type === "chunk"),
      "a first chunk",
    );
    // The provider is still streaming (a frame every 50 ms) when the reply's time runs out.
    assert.equal(sessionTimers.fire(500), 1, "the stream timeout is armed");
    await socket.done("c1");
    const events = socket.of("c1");
    checkReply(events);
    assert.equal(
      events.find((event) => event.event_type === "error")?.payload.code,
      "STREAM_TIMEOUT",
    );
  },
});

Deno.test({
  name: "gateway: a session idle past its TTL is expired",
  async fn() {
    const clock = new ShiftedClock();
    const timers = new ManualTimers();
    await using fixture = await gatewayFixture({ sessionTtlSeconds: 60, clock, timers });
    assert.deepEqual(timers.delays(), [15_000], "the sweeper looks every quarter of the TTL");
    const socket = await fixture.ws("/chat/kgent?session=old");
    socket.message("hi", "c1");
    await socket.done("c1");
    await socket.close();
    await waitUntil(() => fixture.gateway.socketCount === 0, "the gateway to drop the socket");
    // A sweep (its results follow the session's promise) before the TTL keeps the session.
    timers.fire(15_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(fixture.gateway.sessionIds(), ["old"]);
    clock.skip(60_001);
    assert.equal(timers.fire(15_000), 1, "the sweeper re-armed");
    await waitUntil(() => fixture.gateway.sessionCount === 0, "the session to expire");
    const again = await fixture.ws("/chat/kgent?session=old");
    await again.until(() => again.events.length >= 1, "SESSION_EXPIRED");
    assert.equal(again.events[0].payload.code, "SESSION_EXPIRED");
  },
});

Deno.test({
  name: "gateway: 200 concurrent sessions each get their whole reply",
  async fn() {
    // One peer drives all 200: its budget (shared by its sessions) is raised to match.
    await using fixture = await gatewayFixture({
      chunkSize: 6,
      config: { entropy_budget: 1000 },
      limits: { peerEntropyBudget: 1000 },
    });
    const sockets = await Promise.all(
      Array.from({ length: 200 }, (_, i) => fixture.ws(`/chat/kgent?session=load${i}`)),
    );
    sockets.forEach((socket, i) => socket.message(`message ${i}`, `c${i}`));
    await Promise.all(sockets.map((socket, i) => socket.done(`c${i}`, 30_000)));
    sockets.forEach((socket, i) => {
      const { content } = checkReply(socket.of(`c${i}`));
      assert.equal(content, `You said: message ${i}. Here is a longer answer to stream.`);
    });
  },
});

Deno.test({
  name: "gateway serves the chat page and refuses sockets without a session",
  async fn() {
    await using fixture = await gatewayFixture();
    const http = fixture.httpUrl;
    const page = await fetch(`${http}/?token=${fixture.token}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>syn chat<\/title>/);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const auth = { authorization: `Bearer ${fixture.token}` };
    const missing = await fetch(`${http}/chat/kgent`, {
      headers: { ...auth, upgrade: "websocket" },
    });
    assert.equal(missing.status, 400);
    await missing.body?.cancel();
    const nowhere = await fetch(`${http}/elsewhere`, { headers: auth });
    assert.equal(nowhere.status, 404);
    await nowhere.body?.cancel();
  },
});
