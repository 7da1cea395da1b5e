/**
 * The gateway in this process, through its web-standard handler: requests go to
 * `gateway.handle(request, info)` and upgrades hand it a socket the test drives (open,
 * frames in, events out, close), so nothing listens and every step is awaited.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { ManualTimers } from "../../tests/fakes/manual_timers.ts";
import { mockLanguageModel } from "../llm/mod.ts";
import { DEFAULT_CHAT_FLUX_CONFIG } from "./chat_flux_config.ts";
import { ChatGateway, type GatewayOptions } from "./chat_gateway.ts";
import { ChatSession } from "./chat_session.ts";
import { templateModel } from "./template_model.ts";

const ANSWER = "The pattern I notice is that you keep coming back to compression.";

interface SentEvent {
  event_type: string;
  sequence: number;
  payload: Record<string, unknown>;
}

/** The server side of a WebSocket, as the gateway uses it; the test plays the peer. */
class FakeSocket {
  readyState = 0;
  bufferedAmount = 0;
  readonly sent: SentEvent[] = [];
  closedWith: { code?: number; reason?: string } | undefined;
  onopen: ((event: Event) => unknown) | null = null;
  onmessage: ((event: MessageEvent) => unknown) | null = null;
  onclose: ((event: CloseEvent) => unknown) | null = null;
  onerror: ((event: Event) => unknown) | null = null;

  send(data: string): void {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(JSON.parse(data));
  }

  /** Closes as the runtime does: the close event follows later, not inside the call. */
  close(code?: number, reason?: string): void {
    if (this.readyState >= 2) return;
    this.readyState = 3;
    this.closedWith = { code, reason };
    queueMicrotask(() => this.onclose?.(new CloseEvent("close", { code, reason })));
  }

  /** Opens the socket; resolves once the gateway has handled the open (session joined). */
  async open(): Promise<void> {
    this.readyState = 1;
    await this.onopen?.(new Event("open"));
  }

  receive(frame: unknown): void {
    const data = typeof frame === "string" ? frame : JSON.stringify(frame);
    this.onmessage?.(new MessageEvent("message", { data }));
  }

  message(content: string, correlationId: string): void {
    this.receive({
      action: "message",
      version: "1.0.0",
      data: { content, mode: "reflect", correlation_id: correlationId },
    });
  }

  of(correlationId: string): SentEvent[] {
    return this.sent.filter((event) => event.payload.correlation_id === correlationId);
  }
}

/** Lets every pending promise callback run (the gateway's sends follow its promises). */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

interface Harness {
  gateway: ChatGateway;
  /** Sessions opened, by id, in order. */
  opened: ChatSession[];
  log: string[];
  /** Upgrades `path` for `peer` and opens the socket (unopened with `open: false`). */
  connect(path: string, options?: { peer?: string; open?: boolean }): Promise<FakeSocket>;
  [Symbol.asyncDispose](): Promise<void>;
}

function harness(options: Partial<GatewayOptions> = {}): Harness {
  const opened: ChatSession[] = [];
  const log: string[] = [];
  const config = { ...DEFAULT_CHAT_FLUX_CONFIG, ...options.config };
  let pending: FakeSocket | undefined;
  const gateway = new ChatGateway({
    persistent: false,
    sessionTtlSeconds: 60,
    log: (line) => log.push(line),
    openSession: async (id, agent) => {
      const session = await ChatSession.open({
        id,
        agent,
        model: mockLanguageModel(ANSWER, { chunkSize: 3 }),
        fallback: templateModel(),
        config,
        clock: options.clock,
      });
      opened.push(session);
      return session;
    },
    ...options,
    config,
    upgradeWebSocket: () => {
      pending = new FakeSocket();
      return {
        socket: pending as unknown as WebSocket,
        response: new Response(null, { headers: { "x-upgraded": "yes" } }),
      };
    },
  });
  return {
    gateway,
    opened,
    log,
    async connect(path, { peer = "10.0.0.1", open = true } = {}) {
      pending = undefined;
      const response = gateway.handle(
        new Request(`http://127.0.0.1${path}`, { headers: { upgrade: "websocket" } }),
        { remoteAddr: { hostname: peer } },
      );
      assert.equal(response.headers.get("x-upgraded"), "yes", `not upgraded: ${response.status}`);
      const socket = pending!;
      if (open) await socket.open();
      return socket;
    },
    [Symbol.asyncDispose]: () => gateway.close(),
  };
}

/** Waits for the reply's end, then for its last events to be sent. */
async function finished(gateway: ChatGateway, sessionId: string, correlationId: string) {
  assert.equal(await gateway.replyFinished(sessionId, correlationId), true, "no such reply");
  await settle();
}

function checkReply(events: SentEvent[]): void {
  assert.deepEqual(events.map((event) => event.sequence), events.map((_, i) => i + 1));
  assert.equal(events.at(-1)?.event_type, "done");
  const chunks = events.filter((event) => event.event_type === "chunk");
  const message = events.find((event) => event.event_type === "message");
  assert.equal(message?.payload.content, ANSWER);
  assert.equal(chunks.map((chunk) => chunk.payload.content).join(""), ANSWER);
  assert.equal(events.at(-1)!.payload.total_chunks, chunks.length);
}

Deno.test("ChatGateway.handle() answers the page, /health and bad paths without upgrading", async () => {
  let upgrades = 0;
  const gateway = new ChatGateway({
    config: DEFAULT_CHAT_FLUX_CONFIG,
    persistent: false,
    sessionTtlSeconds: 60,
    openSession: () => Promise.reject(new Error("no session in this test")),
    upgradeWebSocket: () => {
      upgrades++;
      throw new Error("no upgrade in this test");
    },
  });
  try {
    const get = (path: string, headers: Record<string, string> = {}) =>
      gateway.handle(new Request(`http://127.0.0.1${path}`, { headers }));
    const page = get("/");
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>syn chat<\/title>/);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    assert.deepEqual(await get("/health").json(), { ok: true, protocol_version: "1.0.0" });
    const upgrade = { upgrade: "websocket" };
    const statuses = [
      get("/elsewhere", upgrade).status,
      get("/chat/bad agent", upgrade).status,
      get("/chat/kgent?session=s1").status,
      get("/chat/kgent", upgrade).status,
      get("/chat/kgent?session=no%20spaces", upgrade).status,
    ];
    assert.deepEqual(statuses, [404, 404, 426, 400, 400]);
    assert.equal(upgrades, 0);
    assert.equal(gateway.socketCount, 0);
  } finally {
    await gateway.close();
  }
});

Deno.test("ChatGateway: a /chat socket gets its reply's events, numbered from 1, done last", async () => {
  await using h = harness();
  const socket = await h.connect("/chat/kgent?session=s1");
  socket.message("What should I focus on?", "c1");
  await finished(h.gateway, "s1", "c1");
  checkReply(socket.sent);
  assert.deepEqual(h.gateway.sessionIds(), ["s1"]);
  assert.equal(h.opened[0].id, "s1");
});

Deno.test("ChatGateway: /perturb frames' events go to the /observe sockets of that session only", async () => {
  await using h = harness();
  const observe = await h.connect("/observe/kgent?session=pair");
  const other = await h.connect("/observe/kgent?session=other");
  const perturb = await h.connect("/perturb/kgent?session=pair");
  perturb.message("hello", "c1");
  observe.message("an observer's frames are ignored", "c2");
  await finished(h.gateway, "pair", "c1");
  checkReply(observe.of("c1"));
  assert.deepEqual(observe.sent, observe.of("c1"));
  assert.deepEqual(perturb.sent, []);
  assert.deepEqual(other.sent, []);
  assert.equal(await h.gateway.replyFinished("pair", "c2"), false);
});

Deno.test("ChatGateway: frames sent before the session opens wait, in order", async () => {
  let openNow!: () => void;
  const gate = new Promise<void>((resolve) => (openNow = resolve));
  const config = DEFAULT_CHAT_FLUX_CONFIG;
  await using h = harness({
    openSession: async (id) => {
      await gate;
      return ChatSession.open({
        id,
        model: mockLanguageModel(ANSWER),
        fallback: templateModel(),
        config,
      });
    },
  });
  const socket = await h.connect("/chat/kgent?session=slow", { open: false });
  const opening = socket.open();
  socket.receive({ action: "stop", version: "1.0.0", data: { correlation_id: "early" } });
  socket.message("first", "c1");
  await settle();
  assert.equal(socket.sent.length, 0, "answered before the session opened");
  openNow();
  await opening;
  await finished(h.gateway, "slow", "c1");
  assert.equal(socket.sent[0].payload.correlation_id, "early");
  assert.equal(socket.sent[0].payload.code, "INVALID_MESSAGE");
  checkReply(socket.of("c1"));
});

Deno.test("ChatGateway: more than 64 frames before the session opens close the socket (1008)", async () => {
  const gate = Promise.withResolvers<void>();
  const config = DEFAULT_CHAT_FLUX_CONFIG;
  await using h = harness({
    openSession: async (id) => {
      await gate.promise;
      return ChatSession.open({
        id,
        model: mockLanguageModel(ANSWER),
        fallback: templateModel(),
        config,
      });
    },
  });
  const socket = await h.connect("/chat/kgent?session=flood", { open: false });
  const opening = socket.open();
  for (let i = 0; i < 64; i++) socket.message(`frame ${i}`, `c${i}`);
  assert.equal(socket.closedWith?.code, undefined, "64 frames may wait");
  socket.message("one too many", "c64");
  assert.equal(socket.closedWith?.code, 1008);
  gate.resolve();
  await opening;
  await settle();
  assert.equal(h.gateway.socketCount, 0, "the closed socket still counts");
});

Deno.test("ChatGateway: a session idle past its TTL expires on the sweeper's timer, not before", async () => {
  const clock = new FakeClock(1_000_000);
  const timers = new ManualTimers();
  await using h = harness({ clock, timers, sessionTtlSeconds: 60 });
  assert.deepEqual(timers.delays(), [15_000], "the sweeper looks every quarter of the TTL");
  const held = await h.connect("/chat/kgent?session=held");
  const socket = await h.connect("/chat/kgent?session=old");
  socket.message("hi", "c1");
  await finished(h.gateway, "old", "c1");
  socket.close();
  await settle();
  clock.current += 59_000;
  assert.equal(timers.fire(15_000), 1);
  await settle();
  assert.deepEqual(h.gateway.sessionIds(), ["held", "old"], "expired before its TTL");
  clock.current += 2_000;
  assert.equal(timers.fire(15_000), 1, "the sweeper did not re-arm");
  await settle();
  // "held" is as idle, but a socket is still open on it.
  assert.deepEqual(h.gateway.sessionIds(), ["held"]);
  assert.deepEqual(h.log, ["chat:expired session=old"]);
  assert.equal(held.closedWith, undefined);
  const again = await h.connect("/chat/kgent?session=old");
  assert.equal(again.sent.length, 1);
  assert.equal(again.sent[0].payload.code, "SESSION_EXPIRED");
  assert.equal(again.closedWith?.code, 1011);
});

Deno.test("ChatGateway: sockets past the per-peer cap get 503 until one closes; other peers pass", async () => {
  await using h = harness({ maxSocketsPerPeer: 2 });
  const first = await h.connect("/chat/kgent?session=a");
  await h.connect("/chat/kgent?session=a");
  const refused = h.gateway.handle(
    new Request("http://127.0.0.1/chat/kgent?session=a", { headers: { upgrade: "websocket" } }),
    { remoteAddr: { hostname: "10.0.0.1" } },
  );
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  await h.connect("/chat/kgent?session=a", { peer: "10.0.0.2" });
  assert.equal(h.gateway.socketCount, 3);
  first.close();
  await settle();
  assert.equal(h.gateway.socketCount, 2);
  await h.connect("/chat/kgent?session=a");
});

Deno.test("ChatGateway: a socket for one session past maxSessions gets RATE_LIMITED and 1013", async () => {
  await using h = harness({ maxSessions: 1 });
  await h.connect("/chat/kgent?session=one");
  const late = await h.connect("/chat/kgent?session=two");
  assert.equal(late.sent.length, 1);
  assert.equal(late.sent[0].payload.code, "RATE_LIMITED");
  assert.equal(late.closedWith?.code, 1013);
  assert.deepEqual(h.gateway.sessionIds(), ["one"]);
});

Deno.test("ChatGateway: a reader past maxBufferedBytes is closed (1013); the reply goes on and resumes whole", async () => {
  await using h = harness({ maxBufferedBytes: 1000 });
  const slow = await h.connect("/chat/kgent?session=s");
  slow.bufferedAmount = 1001;
  slow.message("hi", "c1");
  await finished(h.gateway, "s", "c1");
  assert.deepEqual(slow.sent, []);
  assert.equal(slow.closedWith?.code, 1013);
  assert.equal(h.gateway.slowReadersClosed, 1);
  const back = await h.connect("/chat/kgent?session=s");
  back.receive({
    action: "resume",
    version: "1.0.0",
    data: { correlation_id: "c1", after_sequence: 0 },
  });
  await settle();
  checkReply(back.sent);
});

Deno.test("ChatGateway.close() closes every socket (1001) and session, stops the sweeper, refuses new sockets", async () => {
  const timers = new ManualTimers();
  const h = harness({ timers });
  const sockets = [
    await h.connect("/chat/kgent?session=a"),
    await h.connect("/observe/kgent?session=b"),
  ];
  sockets[0].message("hi", "c1");
  await h.gateway.close();
  assert.deepEqual(sockets.map((socket) => socket.closedWith?.code), [1001, 1001]);
  assert.deepEqual(timers.delays(), []);
  assert.equal(h.gateway.sessionCount, 0);
  const refusal = h.opened[0].start({ content: "again", mode: "reflect", correlation_id: "c2" });
  assert.deepEqual(refusal, { code: "SESSION_EXPIRED", message: "This session is closed" });
  const late = h.gateway.handle(
    new Request("http://127.0.0.1/chat/kgent?session=a", { headers: { upgrade: "websocket" } }),
  );
  assert.equal(late.status, 503);
});

Deno.test("ChatGateway: a resume paces its backlog by the socket's drain and gives up after 30 s without one", async () => {
  const clock = new FakeClock(1_000_000);
  await using h = harness({ clock, maxBufferedBytes: 1000 });
  const first = await h.connect("/chat/kgent?session=s");
  first.message("hi", "c1");
  await finished(h.gateway, "s", "c1");
  const all = first.sent.length;
  // This reader's queue stays above half the cap: nothing is sent, the pauses double to 100 ms.
  const stuck = await h.connect("/chat/kgent?session=s");
  stuck.bufferedAmount = 501;
  stuck.receive({
    action: "resume",
    version: "1.0.0",
    data: { correlation_id: "c1", after_sequence: 0 },
  });
  await settle();
  assert.equal(stuck.sent.length, 0);
  assert.equal(stuck.closedWith?.code, 1013);
  assert.deepEqual(clock.sleeps.slice(0, 6), [5, 10, 20, 40, 80, 100]);
  assert.ok(clock.sleeps.reduce((sum, ms) => sum + ms, 0) > 30_000);
  assert.ok(clock.sleeps.reduce((sum, ms) => sum + ms, 0) <= 30_100);
  assert.equal(h.gateway.slowReadersClosed, 1);
  // One that drains at the cap's half gets every event.
  const steady = await h.connect("/chat/kgent?session=s");
  steady.bufferedAmount = 500;
  steady.receive({
    action: "resume",
    version: "1.0.0",
    data: { correlation_id: "c1", after_sequence: 0 },
  });
  await settle();
  assert.equal(steady.sent.length, all);
  checkReply(steady.sent);
});
