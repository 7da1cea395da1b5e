import assert from "node:assert/strict";
import { createChatMessage } from "./chat_message.ts";

Deno.test("createChatMessage() refuses empty content and non-increasing timestamps", () => {
  const first = createChatMessage({ content: "hi", timestamp: 10 });
  assert.equal(first.role, "user");
  assert.equal(first.mode, "reflect");
  assert.ok(Object.isFrozen(first));
  assert.throws(() => createChatMessage({ content: "   ", timestamp: 1 }), /cannot be empty/);
  assert.throws(
    () => createChatMessage({ content: "x", timestamp: 10 }, first.timestamp),
    /increase/,
  );
  assert.equal(createChatMessage({ content: "x", timestamp: 11 }, first.timestamp).timestamp, 11);
});
