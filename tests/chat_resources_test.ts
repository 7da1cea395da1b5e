/**
 * What a client can make the gateway hold is released and capped: a session's sandbox
 * worker and stores are freed when it expires; sessions, sockets per peer and the entropy
 * a peer spends are capped however many session ids it makes up.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ChatSession,
  DEFAULT_CHAT_FLUX_CONFIG,
  MemoryStore,
  templateModel,
} from "../lib/chat/mod.ts";
import { mockLanguageModel } from "../lib/llm/mod.ts";
import { ToolSession } from "../lib/tools/mod.ts";
import { gatewayFixture } from "./fakes/chat_gateway.ts";
import { ShiftedClock } from "./fakes/fake_clock.ts";
import { ManualTimers } from "./fakes/manual_timers.ts";
import { waitUntil } from "./fakes/wait_until.ts";

function descriptors(): number {
  return [...Deno.readDirSync("/proc/self/fd")].length;
}

Deno.test({
  name: "gateway: an expired session releases its sandbox worker and its memory view",
  async fn() {
    const stateDir = await Deno.makeTempDir();
    const root = await Deno.makeTempDir();
    const config = { ...DEFAULT_CHAT_FLUX_CONFIG, entropy_budget: 1000 };
    // One memory store for the process, as syn chat serve opens it; each session takes a view.
    using memory = MemoryStore.open(stateDir);
    const clock = new ShiftedClock();
    const timers = new ManualTimers();
    await using fixture = await gatewayFixture({
      sessionTtlSeconds: 60,
      clock,
      timers,
      config,
      openSession: async (id) =>
        ChatSession.open({
          id,
          model: mockLanguageModel([
            'Looking. <<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.list_dir","args":{"path":"."}}]<<<END_TOOL_CALLS_JSON>>>',
            "Nothing there.",
          ]),
          fallback: templateModel(),
          tools: await ToolSession.open({ root, bubblewrap: "off" }),
          memory,
          config,
          clock,
        }),
    });
    const before = descriptors();
    const sockets = [];
    for (let i = 0; i < 6; i++) {
      const socket = await fixture.ws(`/chat/kgent?session=held${i}`);
      socket.message("what is in the folder?", "c1");
      await socket.done("c1");
      assert.ok(socket.events.some((event) => event.payload.tool_result), "a tool ran");
      sockets.push(socket);
    }
    const held = descriptors();
    assert.equal(memory.openSessions, 6);
    assert.ok(held - before >= 6, `six sessions hold ${held - before} descriptors`);
    for (const socket of sockets) await socket.close();
    await waitUntil(() => fixture.gateway.socketCount === 0, "the gateway to drop the sockets");
    clock.skip(60_001);
    assert.equal(timers.fire(15_000), 1, "the sweeper is armed");
    await waitUntil(() => fixture.gateway.sessionCount === 0, "the sessions to expire");
    await waitUntil(
      () => descriptors() <= before + 2,
      `descriptors back near ${before} (now ${descriptors()})`,
    );
    assert.equal(memory.openSessions, 0, "every session gave its memory view back");
    await Deno.remove(stateDir, { recursive: true });
    await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "gateway: past --max-sessions a new session is refused with RATE_LIMITED and close 1013",
  async fn() {
    await using fixture = await gatewayFixture({ limits: { maxSessions: 2 } });
    const first = await fixture.ws("/chat/kgent?session=one");
    await fixture.ws("/chat/kgent?session=two");
    await waitUntil(() => fixture.gateway.sessionCount === 2, "two sessions");
    const third = await fixture.ws("/chat/kgent?session=three");
    await third.until(() => third.events.length >= 1, "a refusal");
    assert.equal(third.events[0].payload.code, "RATE_LIMITED");
    await third.until(() => third.socket.readyState === WebSocket.CLOSED, "the close");
    const joined = await fixture.ws("/chat/kgent?session=one");
    joined.message("still served", "c1");
    await joined.done("c1");
    assert.equal(first.socket.readyState, WebSocket.OPEN);
  },
});

Deno.test({
  name: "gateway: one peer's sockets are capped; the excess upgrade is refused",
  async fn() {
    await using fixture = await gatewayFixture({ limits: { maxSocketsPerPeer: 2 } });
    await fixture.ws("/chat/kgent?session=a");
    const second = await fixture.ws("/chat/kgent?session=b");
    await assert.rejects(fixture.ws("/chat/kgent?session=c"), /cannot connect/);
    await second.close();
    await waitUntil(() => fixture.gateway.socketCount === 1, "the closed socket released");
    await fixture.ws("/chat/kgent?session=c");
  },
});

Deno.test({
  name: "gateway: a new session id does not buy a new entropy budget",
  async fn() {
    await using fixture = await gatewayFixture({
      config: { entropy_budget: 0.0015 },
      limits: { peerEntropyBudget: 0.0015 },
    });
    const first = await fixture.ws("/chat/kgent?session=spend1");
    first.message("hi", "c1");
    await first.done("c1");
    const fresh = await fixture.ws("/chat/kgent?session=spend2");
    fresh.message("hi again", "c2");
    await fresh.until(() => fresh.of("c2").length >= 1, "an answer");
    assert.equal(fresh.of("c2")[0].payload.code, "RATE_LIMITED");
  },
});

Deno.test({
  name: "gateway: 50 sessions from one address (a reverse proxy) each get their normal replies",
  async fn() {
    // The defaults of syn chat serve: every user behind one proxy shares its address.
    await using fixture = await gatewayFixture({
      config: { entropy_budget: DEFAULT_CHAT_FLUX_CONFIG.entropy_budget },
      limits: {},
    });
    const sessions = 50;
    // Two DIALOGUE replies use 0.08 of a session's own 0.10: its normal share.
    const replies = 2;
    const sockets = await Promise.all(
      Array.from({ length: sessions }, (_, index) => fixture.ws(`/chat/kgent?session=u${index}`)),
    );
    for (let round = 0; round < replies; round++) {
      for (const [index, socket] of sockets.entries()) {
        socket.message("hello", `u${index}-${round}`);
      }
      await Promise.all(sockets.map((socket, index) =>
        socket.until(
          () =>
            socket.of(`u${index}-${round}`).some((event) =>
              event.event_type === "done" || event.event_type === "error"
            ),
          `the answer to u${index}-${round}`,
          30_000,
        )
      ));
    }
    const limited = sockets.flatMap((socket) =>
      socket.events.filter((event) => event.payload.code === "RATE_LIMITED")
    );
    assert.equal(limited.length, 0, `${limited.length} of ${sessions * replies} replies refused`);
    const asked = fixture.llm.requests.map((request) =>
      (request.body as Record<string, unknown>).max_completion_tokens
    );
    assert.equal(asked.length, sessions * replies);
    assert.deepEqual(new Set(asked), new Set([4000]), "a reply was cut down to a lower tier");
  },
});

Deno.test({
  name: "gateway: the per-address budget is its own setting and still caps one address",
  async fn() {
    await using fixture = await gatewayFixture({
      config: { entropy_budget: 1000 },
      limits: { peerEntropyBudget: 0.0015 },
    });
    const first = await fixture.ws("/chat/kgent?session=p1");
    first.message("hi", "c1");
    await first.done("c1");
    const second = await fixture.ws("/chat/kgent?session=p2");
    second.message("hi", "c2");
    await second.until(() => second.of("c2").length >= 1, "an answer");
    assert.equal(second.of("c2")[0].payload.code, "RATE_LIMITED");
  },
});

Deno.test({
  name: "a session reopened from its checkpoint has its earlier grants pending, not granted",
  async fn() {
    const stateDir = await Deno.makeTempDir();
    const root = await Deno.makeTempDir();
    const { CheckpointStore } = await import("../lib/chat/mod.ts");
    const open = async () => {
      const tools = await ToolSession.open({ root, bubblewrap: "off" });
      const session = await ChatSession.open({
        id: "work",
        model: templateModel(),
        fallback: templateModel(),
        tools,
        store: new CheckpointStore(stateDir),
        config: DEFAULT_CHAT_FLUX_CONFIG,
      });
      return { session, tools };
    };
    const owner = await open();
    await owner.session.setCapability("net:127.0.0.1", true);
    assert.deepEqual(owner.tools.capabilities.capabilities_granted, ["net:127.0.0.1"]);
    await owner.session.close();
    const joiner = await open();
    assert.deepEqual(joiner.session.checkpoint.state.capabilities_granted, []);
    assert.deepEqual(joiner.session.checkpoint.state.capabilities_pending, ["net:127.0.0.1"]);
    assert.deepEqual(joiner.tools.capabilities.capabilities_granted, []);
    const result = await joiner.tools.call({
      id: "t1",
      tool: "http.get",
      args: { url: "http://127.0.0.1:9/" },
    });
    assert.equal(result.ok, false);
    assert.match(String(result.error?.code), /capab|denied|not_granted/i, JSON.stringify(result));
    await joiner.session.close();
    await Deno.remove(join(stateDir), { recursive: true });
    await Deno.remove(root, { recursive: true });
  },
});
