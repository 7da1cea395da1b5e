import assert from "node:assert/strict";
import { mockLanguageModel } from "./mock_language_model.ts";
import { ProviderError } from "./provider_error.ts";
import type { StreamEvent, StreamRequest } from "./types.ts";

Deno.test("mockLanguageModel() answers from a function and records every call", async () => {
  const model = mockLanguageModel((request, call) => `${call}: ${request.prompt}`);
  assert.equal((await model.generate({ prompt: "a" })).text, "0: a");
  assert.equal((await model.generate({ prompt: "b" })).text, "1: b");
  assert.deepEqual(model.calls.map((request) => request.prompt), ["a", "b"]);
});

Deno.test("mockLanguageModel() walks a list of answers and throws Error items", async () => {
  const model = mockLanguageModel([
    { title: "first" },
    new ProviderError("rate_limited", "scripted"),
  ]);
  const first = await model.generate({ prompt: "x", jsonSchema: { type: "object" } });
  assert.deepEqual(first.json, { title: "first" });
  assert.equal(first.text, '{"title":"first"}');
  await assert.rejects(model.generate({ prompt: "x" }), ProviderError);
  await assert.rejects(model.generate({ prompt: "x" }), /Mock script has no answer for call: 2/);
});

Deno.test("mockLanguageModel() checks JSON answers against the requested schema", async () => {
  const model = mockLanguageModel({ title: 3 });
  await assert.rejects(
    model.generate({
      prompt: "x",
      jsonSchema: { type: "object", properties: { title: { type: "string" } } },
    }),
    (error: unknown) => error instanceof ProviderError && error.reason === "bad_response",
  );
});

Deno.test("mockLanguageModel() builds a schema example when no script is given", async () => {
  const model = mockLanguageModel(undefined, { provider: "anthropic", model: "m" });
  const result = await model.generate({
    prompt: "x",
    jsonSchema: { type: "object", properties: { n: { type: "integer", minimum: 3 } } },
  });
  assert.deepEqual(result.json, { n: 3 });
  assert.equal(result.provider, "anthropic");
  assert.equal(result.mode, "mock");
  assert.equal((await model.generate({ prompt: "hello" })).text, "Mock answer to: hello");
});

Deno.test("mockLanguageModel() streams deltas whose concatenation is the final text", async () => {
  const model = mockLanguageModel("The quick brown fox jumps over the lazy dog", { chunkSize: 5 });
  const deltas: string[] = [];
  let finalText = "";
  const onTextDelta = (text: string) => deltas.push(text);
  for await (const event of model.stream({ prompt: "x", onTextDelta })) {
    finalText = event.result.text;
  }
  assert.equal(deltas.length, 9);
  assert.equal(deltas.join(""), finalText);
  assert.equal(finalText, (await model.generate({ prompt: "x" })).text);
});

Deno.test("stream() hands every delta to onTextDelta and yields only the finish event", async () => {
  const model = mockLanguageModel("abcdefghij", { chunkSize: 3 });
  const taken: string[] = [];
  const yielded: string[] = [];
  const onTextDelta = (text: string) => taken.push(text);
  for await (const event of model.stream({ prompt: "x", onTextDelta })) yielded.push(event.type);
  assert.deepEqual(taken, ["abc", "def", "ghi", "j"]);
  assert.deepEqual(yielded, ["finish"]);
});

// `deno test` type-checks this file: were a `text-delta` event or a stream request without
// `onTextDelta` allowed, the unused `@ts-expect-error` lines would fail the run.
Deno.test("StreamEvent has no text-delta, and a stream request needs onTextDelta", async () => {
  async function* yieldsDelta(): AsyncGenerator<StreamEvent> {
    // @ts-expect-error: text deltas go to onTextDelta, never through the iterator
    yield { type: "text-delta", text: "x" };
  }
  // @ts-expect-error: a stream request without the delta channel is refused
  const request: StreamRequest = { prompt: "x" };
  // Only the type checker stands in the way; at run time the objects are what they are.
  assert.deepEqual(await Array.fromAsync(yieldsDelta()), [{ type: "text-delta", text: "x" }]);
  assert.equal(request.onTextDelta, undefined);
});
