import { loadConfig } from "../core/mod.ts";
import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { createLanguageModel } from "./create_language_model.ts";
import { ProviderError } from "./provider_error.ts";
import { resolveModelConfig } from "./resolve_model_config.ts";

const ENV: Record<string, string> = {
  LABS_EXTERNAL_LIVE: "1",
  GEMINI_API_KEY: "gemini-test-key-0123",
};
const BLOCKED = { promptFeedback: { blockReason: "SAFETY", safetyRatings: [] } };

function model(body: () => Response) {
  let calls = 0;
  const clock = new FakeClock(0);
  const instance = createLanguageModel(
    resolveModelConfig("gemini", { config: loadConfig((name) => ENV[name]) }),
    {
      fetch: (() => {
        calls++;
        return Promise.resolve(body());
      }) as typeof fetch,
      clock,
      random: () => 0,
    },
  );
  return { instance, calls: () => calls, clock };
}

Deno.test("a Gemini prompt blocked in a stream is bad_response naming the reason, never retried", async () => {
  const { instance, calls, clock } = model(() =>
    new Response(`data: ${JSON.stringify(BLOCKED)}\r\n\r\n`, {
      headers: { "content-type": "text/event-stream" },
    })
  );
  let error: unknown;
  const deltas: string[] = [];
  try {
    const onTextDelta = (text: string) => deltas.push(text);
    for await (const _ of instance.stream({ prompt: "x", onTextDelta })) {
      // only a finish could arrive here, and none does
    }
  } catch (thrown) {
    error = thrown;
  }
  assert.ok(error instanceof ProviderError, String(error));
  assert.equal(error.reason, "bad_response");
  assert.match(error.message, /Prompt blocked: SAFETY/);
  assert.deepEqual(deltas, []);
  assert.equal(calls(), 1);
  assert.deepEqual(clock.sleeps, []);
});

Deno.test("a Gemini prompt blocked without streaming is bad_response, never retried", async () => {
  const { instance, calls } = model(() => Response.json(BLOCKED));
  const error = await instance.generate({ prompt: "x" }).catch((thrown) => thrown);
  assert.ok(error instanceof ProviderError);
  assert.equal(error.reason, "bad_response");
  assert.match(error.message, /Prompt blocked: SAFETY/);
  assert.equal(calls(), 1);
});
