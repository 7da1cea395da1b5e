import assert from "node:assert/strict";
import {
  type EventStore,
  parseToolEvent,
  type StoredToolEvent,
  type ToolEvent,
  type ToolEventRecord,
} from "../../lib/synthesize/mod.ts";

/** Backing storage for one test: every `open` connects to the same events. */
export interface EventStoreFixture extends AsyncDisposable {
  open(): Promise<EventStore>;
}

/** A valid event (through the real parser), defaults filled in. */
export function makeEvent(
  fields: Partial<ToolEventRecord> & { event_id: string },
): Promise<ToolEvent> {
  return parseToolEvent({
    session_id: "s1",
    tool_id: "kb.search",
    input_params: { query: "x" },
    output_summary: null,
    outcome: "SUCCESS",
    latency_ms: 5,
    ts: "2026-01-01T00:00:00Z",
    ...fields,
  });
}

function ids(events: readonly StoredToolEvent[]): string[] {
  return events.map((event) => event.event_id);
}

function withoutSeq(event: StoredToolEvent | undefined): ToolEvent | undefined {
  if (!event) return undefined;
  const { seq: _seq, ...rest } = event;
  return rest;
}

/**
 * The one conformance suite every `EventStore` passes (hono's habit: one suite, every
 * implementation). Registers its `Deno.test` cases under `name`; `fixture` makes fresh,
 * empty storage per case.
 */
export function eventStoreConformance(
  name: string,
  fixture: () => Promise<EventStoreFixture>,
  options: { ignore?: boolean } = {},
): void {
  const test = (title: string, body: (open: () => Promise<EventStore>) => Promise<void>) =>
    Deno.test({
      name: `${name}: ${title}`,
      ignore: options.ignore,
      async fn() {
        await using storage = await fixture();
        const opened: EventStore[] = [];
        try {
          await body(async () => {
            const store = await storage.open();
            opened.push(store);
            return store;
          });
        } finally {
          for (const store of opened) await store.close();
        }
      },
    });

  test("append then get returns every field, ts exactly as given", async (open) => {
    const store = await open();
    const given = [
      await makeEvent({
        event_id: "e1",
        input_params: { query: "weather", nested: { list: [1, 2.5, null, true] } },
        output_summary: '{"url": "https://example.com"}',
        outcome: "FAILURE",
        latency_ms: 1234,
        ts: "2026-03-01T10:00:00.250+02:00",
      }),
      await makeEvent({ event_id: "e2", ts: 1767225600.5, outcome: "TIMEOUT", latency_ms: 0 }),
    ];
    assert.deepEqual(await store.append(given), { added: 2, duplicates: 0 });
    const first = await store.get("e1");
    assert.deepEqual(withoutSeq(first), given[0]);
    assert.equal(first!.ts_ms, Date.parse("2026-03-01T08:00:00.250Z"));
    const second = await store.get("e2");
    assert.deepEqual(withoutSeq(second), given[1]);
    assert.equal(second!.ts, 1767225600.5);
    assert.equal(second!.ts_ms, 1767225600500);
    assert.equal(typeof second!.seq, "number");
  });

  test("append is idempotent by event_id: the first copy stays", async (open) => {
    const store = await open();
    const original = await makeEvent({ event_id: "e1", tool_id: "first" });
    const copy = await makeEvent({ event_id: "e1", tool_id: "second" });
    const other = await makeEvent({ event_id: "e2" });
    assert.deepEqual(await store.append([original, copy, other]), { added: 2, duplicates: 1 });
    assert.deepEqual(await store.append([copy, other]), { added: 0, duplicates: 2 });
    assert.equal((await store.get("e1"))!.tool_id, "first");
    assert.deepEqual(await store.stats(), { events: 2, sessions: 1 });
    assert.deepEqual(await store.append([]), { added: 0, duplicates: 0 });
  });

  test("getBySession orders by ts, then by append order", async (open) => {
    const store = await open();
    await store.append([
      await makeEvent({ event_id: "late", ts: "2026-01-01T00:00:09Z" }),
      await makeEvent({ event_id: "tie-a", ts: "2026-01-01T00:00:05Z" }),
      await makeEvent({ event_id: "other-session", session_id: "s2" }),
      await makeEvent({ event_id: "tie-b", ts: 1767225605 }), // the same instant, later line
      await makeEvent({ event_id: "early", ts: "2026-01-01T00:00:01.000001Z" }),
      await makeEvent({ event_id: "earliest", ts: "2026-01-01T00:00:01.0000001Z" }),
    ]);
    await store.append([await makeEvent({ event_id: "tie-c", ts: "2026-01-01T00:00:05.000Z" })]);
    assert.deepEqual(ids(await store.getBySession("s1")), [
      "earliest",
      "early",
      "tie-a",
      "tie-b",
      "tie-c",
      "late",
    ]);
    assert.deepEqual(ids(await store.getBySession("s2")), ["other-session"]);
  });

  test("unknown ids find nothing", async (open) => {
    const store = await open();
    await store.append([await makeEvent({ event_id: "e1" })]);
    assert.equal(await store.get("nope"), undefined);
    assert.deepEqual(await store.getBySession("nope"), []);
    assert.equal(await store.get("E1"), undefined, "ids are case-sensitive");
  });

  test("getSessions lists by start, then id, and keeps sessions overlapping the range", async (open) => {
    const store = await open();
    await store.append([
      await makeEvent({ event_id: "b1", session_id: "b", ts: 100 }),
      await makeEvent({ event_id: "b2", session_id: "b", ts: 200 }),
      await makeEvent({ event_id: "a1", session_id: "a", ts: 100 }),
      await makeEvent({ event_id: "Z1", session_id: "Z", ts: 100 }),
      await makeEvent({ event_id: "c1", session_id: "c", ts: 50 }),
      await makeEvent({ event_id: "d1", session_id: "d", ts: 300 }),
    ]);
    const all = await store.getSessions();
    assert.deepEqual(all.map((session) => session.session_id), ["c", "Z", "a", "b", "d"]);
    assert.deepEqual(all[3], {
      session_id: "b",
      started_ms: 100_000,
      ended_ms: 200_000,
      events: 2,
    });
    const names = async (since?: number, until?: number) =>
      (await store.getSessions({ since, until })).map((session) => session.session_id);
    assert.deepEqual(await names(150_000), ["b", "d"]);
    assert.deepEqual(await names(200_000, 300_000), ["b", "d"], "both ends inclusive");
    assert.deepEqual(await names(undefined, 50_000), ["c"]);
    assert.deepEqual(await names(201_000, 299_999), []);
  });

  test("scanSessions walks every session in getSessions order, in chunks", async (open) => {
    const store = await open();
    const events: ToolEvent[] = [];
    for (let session = 0; session < 700; session++) {
      for (let step = 2; step >= 0; step--) {
        events.push(
          await makeEvent({
            event_id: `s${session}-${step}`,
            session_id: `s${session}`,
            tool_id: `tool${step}`,
            ts: 1000 + session * 10 + step,
          }),
        );
      }
    }
    await store.append(events);
    const seen: string[] = [];
    for await (const session of store.scanSessions()) {
      seen.push(session.session_id);
      assert.deepEqual(
        session.events.map((event) => event.tool_id),
        ["tool0", "tool1", "tool2"],
        session.session_id,
      );
    }
    assert.deepEqual(seen, (await store.getSessions()).map((session) => session.session_id));
    assert.equal(seen.length, 700);
    const ranged: string[] = [];
    for await (const session of store.scanSessions({ since: 1_001_000, until: 1_020_000 })) {
      ranged.push(session.session_id);
    }
    assert.deepEqual(ranged, ["s0", "s1", "s2"]);
  });

  test("awkward text round-trips unchanged", async (open) => {
    const store = await open();
    const awkward =
      'NUL\u0000 tab\t nl\n cr\r quote\' dq" back\\slash \\N \u{1F600} é \u2028 {"x":1}; DROP TABLE x; --';
    const event = await makeEvent({
      event_id: "id with spaces/ünïcødé 😀 ' \"",
      session_id: "session'; DROP TABLE tool_events; --",
      tool_id: "\\N",
      input_params: { [awkward]: awkward, big: "x".repeat(200_000), empty: {}, list: [] },
      output_summary: awkward,
    });
    await store.append([event]);
    assert.deepEqual(withoutSeq(await store.get(event.event_id)), event);
    assert.deepEqual(ids(await store.getBySession(event.session_id)), [event.event_id]);
  });

  test("a failing append stores nothing of its batch", async (open) => {
    const store = await open();
    const good = await makeEvent({ event_id: "good" });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const broken = { ...(await makeEvent({ event_id: "broken" })), input_params: circular };
    await assert.rejects(store.append([good, broken]));
    assert.equal(await store.get("good"), undefined);
    assert.deepEqual(await store.append([good]), { added: 1, duplicates: 0 });
  });

  test("events survive close and reopen; two connections share one store", async (open) => {
    const first = await open();
    await first.append([await makeEvent({ event_id: "e1" })]);
    await first.close();
    const second = await open();
    const third = await open();
    assert.deepEqual(ids(await second.getBySession("s1")), ["e1"]);
    const [left, right] = await Promise.all([
      second.append([await makeEvent({ event_id: "e2" }), await makeEvent({ event_id: "e3" })]),
      third.append([await makeEvent({ event_id: "e3" }), await makeEvent({ event_id: "e4" })]),
    ]);
    assert.equal(left.added + right.added, 3);
    assert.equal(left.duplicates + right.duplicates, 1);
    assert.deepEqual(await third.stats(), { events: 4, sessions: 1 });
  });

  test("a large batch keeps its order and counts", async (open) => {
    const store = await open();
    const events: ToolEvent[] = [];
    for (let index = 0; index < 25_000; index++) {
      events.push(
        await makeEvent({
          event_id: `e${index}`,
          session_id: `s${index % 100}`,
          ts: 1000, // one instant: only append order is left to order by
        }),
      );
    }
    assert.deepEqual(await store.append(events), { added: 25_000, duplicates: 0 });
    const session = await store.getBySession("s7");
    assert.equal(session.length, 250);
    assert.deepEqual(ids(session).slice(0, 3), ["e7", "e107", "e207"]);
    assert.ok(session.every((event, index) => index === 0 || event.seq > session[index - 1].seq));
    assert.deepEqual(await store.stats(), { events: 25_000, sessions: 100 });
  });
}
