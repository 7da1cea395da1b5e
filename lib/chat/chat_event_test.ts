import assert from "node:assert/strict";
import { type ChatEvent, chatEventToJson } from "./chat_event.ts";

Deno.test("chatEventToJson() writes the spec's key order, for each event in turn", () => {
  const first: ChatEvent = {
    timestamp: 1.5,
    sequence: 1,
    payload: { content: "a", final: false, correlation_id: "c" },
    event_type: "chunk",
  };
  const second: ChatEvent = {
    event_type: "done",
    payload: { total_chunks: 1, correlation_id: "c" },
    sequence: 2,
    timestamp: 2,
  };
  const firstText =
    '{"event_type":"chunk","payload":{"content":"a","final":false,"correlation_id":"c"},"sequence":1,"timestamp":1.5}';
  assert.equal(chatEventToJson(first), firstText);
  assert.equal(chatEventToJson(first), firstText);
  assert.equal(
    chatEventToJson(second),
    '{"event_type":"done","payload":{"total_chunks":1,"correlation_id":"c"},"sequence":2,"timestamp":2}',
  );
  assert.equal(chatEventToJson(first), firstText);
});
