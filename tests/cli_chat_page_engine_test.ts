/**
 * The chat page says which engine answers, as the REPL's banner does: with no key set, that
 * the offline template engine gives canned replies.
 */
import assert from "node:assert/strict";
import { chatPageFor } from "../lib/chat/chat_page_engine.ts";
import { startSyn } from "./fakes/cli_io.ts";

Deno.test("chatPageFor() names the engine, escaped, and says plainly when replies are canned", () => {
  const offline = chatPageFor({ label: "template (offline)", offline: true });
  assert.match(offline, /<small id="engine">model template \(offline\)<\/small><\/header>/);
  assert.match(offline, /Offline template engine: no language model is configured/);
  const live = chatPageFor({ label: "openai <b>gpt</b>", offline: false });
  assert.match(live, /model openai &lt;b&gt;gpt&lt;\/b&gt;/);
  assert.doesNotMatch(live, /Offline template engine/);
});

Deno.test("syn chat serve with no key serves a page that says it runs the offline template engine", async () => {
  const served = await startSyn(["chat", "serve", "--port", "0"], "stderr", /chat:ready url=(\S+)/);
  try {
    const response = await fetch(served.match[1]);
    const page = await response.text();
    assert.equal(response.status, 200, page);
    assert.match(page, /model template \(offline\)/);
    assert.match(page, /Offline template engine/);
  } finally {
    await served.stop();
  }
});
