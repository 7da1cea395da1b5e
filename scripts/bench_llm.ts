/**
 * Overhead of lib/llm over a raw `fetch` against the local mock server, per call and per
 * streamed chunk. Run: `deno run -A scripts/bench_llm.ts [--calls 300] [--chunks 2000]`.
 */
import { parseArgs } from "node:util";
import { createLanguageModel, resolveModelConfig } from "../lib/llm/mod.ts";
import { startMockLlmServer } from "./mock_llm_server.ts";

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
const model = createLanguageModel(resolveModelConfig("openai", { env: (name) => env[name] }));
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
  const decoder = new TextDecoder();
  let buffer = "";
  let deltas = 0;
  for await (const chunk of response.body!) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.slice(6);
      if (data === "[DONE]") continue;
      if (JSON.parse(data).choices?.[0]?.delta?.content) deltas++;
    }
  }
  return deltas;
}

async function layerStream(): Promise<number> {
  let deltas = 0;
  for await (const event of model.stream({ prompt: "x" })) {
    if (event.type === "text-delta") deltas++;
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
