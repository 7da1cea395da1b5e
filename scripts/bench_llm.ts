/**
 * Overhead of lib/llm over a raw `fetch` against the local mock server, per call and per
 * streamed chunk; then CPU per delta when every read brings one event (a token stream as it
 * really arrives), on in-process bodies so only the reading is measured.
 * Run: `deno run -A scripts/bench_llm.ts [--calls 300] [--chunks 2000]`.
 */
import { loadConfig } from "../lib/core/mod.ts";
import { parseArgs } from "node:util";
import { createLanguageModel, resolveModelConfig } from "../lib/llm/mod.ts";
import { byteReader } from "../lib/core/mod.ts";
import { startMockLlmServer } from "../tests/fakes/mock_llm_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "300" },
    chunks: { type: "string", default: "2000" },
  },
});
const calls = Number(values.calls);
const chunks = Number(values.chunks);
const chunkSize = 8;
const longAnswer = "abcdefgh".repeat(chunks);

await using server = await startMockLlmServer({
  chunkSize,
  answer: (context) => context.stream ? longAnswer : { title: "bench", intensity: 0.5 },
});
const env: Record<string, string> = {
  LABS_EXTERNAL_LIVE: "1",
  OPENAI_API_KEY: "bench-key-0000",
  OPENAI_ENDPOINT: server.openaiUrl,
};
const model = createLanguageModel(
  resolveModelConfig("openai", { config: loadConfig((name) => env[name]) }),
);
const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
const body = JSON.stringify({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "bench" }],
  response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: false } },
});
const headers = { "content-type": "application/json", authorization: "Bearer bench-key-0000" };

async function rawCall() {
  const response = await fetch(`${server.openaiUrl}/chat/completions`, {
    method: "POST",
    headers,
    body,
  });
  const parsed = await response.json();
  JSON.parse(parsed.choices[0].message.content);
}

async function rawStream(): Promise<number> {
  const response = await fetch(`${server.openaiUrl}/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "x" }] }),
  });
  return await bareDeltas(response.body!);
}

/** The least a reader of an OpenAI event stream does: read as lib/llm reads, split, parse. */
async function bareDeltas(body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = byteReader(body);
  const decoder = new TextDecoder();
  let carry = "";
  let deltas = 0;
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    const lines = (carry + decoder.decode(step.value, { stream: true })).split("\n");
    carry = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith("data: {") && JSON.parse(line.slice(6)).choices?.[0]?.delta?.content) {
        deltas++;
      }
    }
  }
  return deltas;
}

async function layerStream(): Promise<number> {
  let deltas = 0;
  for await (const _ of model.stream({ prompt: "x", onTextDelta: () => deltas++ })) {
    // the finish event
  }
  return deltas;
}

async function time(label: string, runs: number, run: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < Math.min(20, runs); index++) await run(); // warm-up
  const start = performance.now();
  for (let index = 0; index < runs; index++) await run();
  const perRun = (performance.now() - start) / runs;
  console.log(`${label.padEnd(34)} ${perRun.toFixed(3).padStart(9)} ms`);
  return perRun;
}

console.log(`lib/llm overhead over raw fetch (mock server on 127.0.0.1, ${calls} calls)`);
const raw = await time("raw fetch + JSON.parse, per call", calls, rawCall);
const layer = await time(
  "model.generate (json schema)",
  calls,
  () => model.generate({ prompt: "bench", jsonSchema: schema }),
);
console.log(`${"overhead per call".padEnd(34)} ${(layer - raw).toFixed(3).padStart(9)} ms`);

const streamRuns = 10;
const rawStreamMs = await time(`raw SSE read, ${chunks} chunks`, streamRuns, rawStream);
const layerStreamMs = await time(`model.stream, ${chunks} chunks`, streamRuns, layerStream);
const perChunkUs = ((layerStreamMs - rawStreamMs) / chunks) * 1000;
console.log(`${"overhead per streamed chunk".padEnd(34)} ${perChunkUs.toFixed(2).padStart(9)} µs`);

// One event per read: 200 streams of 200 deltas at once, bodies made in this process.
const STREAMS = 200;
const EVENTS = 200;
const encoder = new TextEncoder();
const event = encoder.encode(
  `data: {"choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}]}\n\n`,
);
function eventBody(): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    type: "bytes",
    async pull(controller) {
      await null; // each read completes on its own turn, as a socket read does
      if (sent < EVENTS) controller.enqueue(event.slice());
      else if (sent === EVENTS) controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      else {
        controller.close();
        controller.byobRequest?.respond(0);
      }
      sent++;
    },
  });
}
const bodyFetch = (() =>
  Promise.resolve(
    new Response(eventBody(), { headers: { "content-type": "text/event-stream" } }),
  )) as typeof fetch;
const inProcess = createLanguageModel(
  resolveModelConfig("openai", { config: loadConfig((name) => env[name]) }),
  { fetch: bodyFetch },
);

async function layerReads(): Promise<number> {
  let deltas = 0;
  for await (const _ of inProcess.stream({ prompt: "x", onTextDelta: () => deltas++ })) {
    // the finish event
  }
  return deltas;
}

/** Median µs per delta over 10 rounds of `STREAMS` concurrent streams, after 2 warm-ups. */
async function perDelta(run: () => Promise<number>): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < 12; round++) {
    const start = performance.now();
    const counts = await Promise.all(Array.from({ length: STREAMS }, run));
    const deltas = counts.reduce((sum, count) => sum + count, 0);
    if (round >= 2) rounds.push(((performance.now() - start) * 1000) / deltas);
  }
  return rounds.sort((a, b) => a - b)[rounds.length >> 1];
}

console.log(`one event per read, ${STREAMS} streams of ${EVENTS} deltas (in-process bodies)`);
const bareUs = await perDelta(() => bareDeltas(eventBody()));
const layerUs = await perDelta(layerReads);
console.log(
  `${"byteReader + split + JSON.parse".padEnd(34)} ${bareUs.toFixed(2).padStart(9)} µs/delta`,
);
console.log(`${"model.stream".padEnd(34)} ${layerUs.toFixed(2).padStart(9)} µs/delta`);
console.log(`${"overhead per read".padEnd(34)} ${(layerUs - bareUs).toFixed(2).padStart(9)} µs`);
