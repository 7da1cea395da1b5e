import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { timestampMs, toEventRecord, toolEventParser } from "./tool_event.ts";
import { compareEvents, parseToolEvent, type StoredToolEvent } from "./mod.ts";

const VALID = {
  event_id: "e1",
  session_id: "s1",
  tool_id: "kb.search",
  input_params: { query: "weather" },
  output_summary: "3 hits",
  outcome: "SUCCESS",
  latency_ms: 42,
  ts: "2026-01-01T10:00:00Z",
};

async function reasonFor(value: unknown): Promise<string> {
  const verdict = (await toolEventParser())(value);
  assert.equal(verdict.ok, false, `expected a refusal of ${JSON.stringify(value)}`);
  return (verdict as { reason: string }).reason;
}

Deno.test("parseToolEvent() accepts the schema's event and adds ts_ms", async () => {
  const event = await parseToolEvent(VALID);
  assert.deepEqual(event, { ...VALID, ts_ms: Date.parse("2026-01-01T10:00:00Z") });
  assert.deepEqual(toEventRecord(event), VALID);
});

Deno.test("parseToolEvent() keeps ts as given and accepts unix seconds", async () => {
  const event = await parseToolEvent({ ...VALID, ts: 1767261600.25 });
  assert.equal(event.ts, 1767261600.25);
  assert.equal(event.ts_ms, 1767261600250);
});

Deno.test("parseToolEvent() allows other keys (a chat trace's call_id) and drops them", async () => {
  const event = await parseToolEvent({ ...VALID, call_id: "c1", error_code: null });
  assert.equal("call_id" in event, false);
  assert.deepEqual(toEventRecord(event), VALID);
});

Deno.test("parseToolEvent() throws invalid_event with the schema's reason", async () => {
  await assert.rejects(parseToolEvent({ ...VALID, outcome: "OK" }), (error: unknown) => {
    assert.ok(error instanceof SynError);
    assert.equal(error.code, "invalid_event");
    assert.match(error.message, /^Not a tool event: \/outcome: /);
    return true;
  });
});

Deno.test("the tool event parser refuses every malformed field", async () => {
  const { event_id: _, ...withoutId } = VALID;
  const cases: [unknown, RegExp][] = [
    [withoutId, /required property 'event_id'/],
    [{ ...VALID, event_id: "" }, /^\/event_id: /],
    [{ ...VALID, session_id: "a\nb" }, /^\/session_id: /],
    [{ ...VALID, tool_id: "tool\u001b[31m" }, /^\/tool_id: /],
    [{ ...VALID, event_id: "lone \ud800 surrogate" }, /^\/event_id: /],
    [{ ...VALID, event_id: "x".repeat(257) }, /^\/event_id: /],
    [{ ...VALID, input_params: [1] }, /^\/input_params: /],
    [{ ...VALID, input_params: null }, /^\/input_params: /],
    [{ ...VALID, output_summary: 3 }, /^\/output_summary: /],
    [{ ...VALID, outcome: "success" }, /^\/outcome: /],
    [{ ...VALID, latency_ms: -1 }, /^\/latency_ms: /],
    [{ ...VALID, latency_ms: 1.5 }, /^\/latency_ms: /],
    [{ ...VALID, ts: "2026-01-01T10:00:00" }, /^\/ts: /],
    [{ ...VALID, ts: "2026-02-30T10:00:00Z" }, /^\/ts: /],
    [{ ...VALID, ts: "yesterday" }, /^\/ts: /],
    [{ ...VALID, ts: -5 }, /^\/ts: /],
    [{ ...VALID, ts: null }, /^\/ts: /],
    [[VALID], /^\/: /],
    ["text", /^\/: /],
  ];
  for (const [value, pattern] of cases) assert.match(await reasonFor(value), pattern);
});

Deno.test("an astral character in an id is fine (only lone surrogates are refused)", async () => {
  const event = await parseToolEvent({ ...VALID, session_id: "séance 😀" });
  assert.equal(event.session_id, "séance 😀");
});

Deno.test("timestampMs() reads RFC 3339 exactly", () => {
  const cases: [unknown, number | undefined][] = [
    ["2026-01-01T00:00:00Z", 1767225600000],
    ["2026-01-01t00:00:00z", 1767225600000],
    ["2026-01-01 00:00:00Z", 1767225600000],
    ["2026-01-01T02:30:00+02:30", 1767225600000],
    ["2025-12-31T23:00:00-01:00", 1767225600000],
    ["2026-01-01T00:00:00.5Z", 1767225600500],
    ["2026-01-01T00:00:00.123456Z", 1767225600123.456],
    ["2016-12-31T23:59:60Z", Date.parse("2017-01-01T00:00:00Z")],
    ["2024-02-29T00:00:00Z", Date.parse("2024-02-29T00:00:00Z")],
    ["2023-02-29T00:00:00Z", undefined],
    ["2026-13-01T00:00:00Z", undefined],
    ["2026-01-01T24:00:00Z", undefined],
    ["2026-01-01T00:00:00+24:00", undefined],
    ["2026-01-01T00:00:00", undefined],
    [1767225600, 1767225600000],
    [0, 0],
    [-1, undefined],
    [Number.NaN, undefined],
    [null, undefined],
  ];
  for (const [input, expected] of cases) assert.equal(timestampMs(input), expected, String(input));
  const early = new Date(timestampMs("0099-03-01T00:00:00Z")!);
  assert.equal(early.toISOString(), "0099-03-01T00:00:00.000Z", "years below 100 are not 19xx");
});

Deno.test("compareEvents() orders by ts_ms, then by seq", () => {
  const event = (seq: number, ts_ms: number) => ({ seq, ts_ms }) as StoredToolEvent;
  const sorted = [event(3, 10), event(1, 20), event(2, 10), event(0, 5)].sort(compareEvents);
  assert.deepEqual(sorted.map((item) => item.seq), [0, 2, 3, 1]);
});
