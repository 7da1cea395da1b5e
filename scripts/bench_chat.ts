/**
 * Chat gateway benchmarks (printed, never asserted):
 *
 *   deno run -A scripts/bench_chat.ts [--sessions 200] [--delay-ms 20]
 *
 * Three threads: the mock OpenAI provider (real wire, 127.0.0.1, 40 deltas `delay-ms`
 * apart: 20 ms is 50 tokens/s per session, a fast hosted model),
 * the WebSocket clients, and between them the gateway with its sessions and `lib/llm`
 * streams. Reported, with `sessions` concurrent sessions:
 * - raw: the same streams read by `lib/llm` alone (time to first delta, gap between deltas);
 * - gateway, `buffer_chunks` 1 (every delta its own event): time to first chunk at the
 *   client, and per chunk the time from the delta reaching the session to the event
 *   reaching the client — what the gateway adds (goal ≤ 2 ms at p99 with 200 sessions);
 * - gateway, `buffer_chunks` 5 (the default), for comparison;
 * - heap per idle session.
 */
import { createLanguageModel, type LanguageModel, resolveModelConfig } from "../lib/llm/mod.ts";
import { ChatSession, DEFAULT_CHAT_FLUX_CONFIG, templateModel } from "../lib/chat/mod.ts";
import { ChatGateway } from "../lib/cli/_chat_gateway.ts";

const sessionsFlag = Deno.args.indexOf("--sessions");
const SESSIONS = sessionsFlag >= 0 ? Number(Deno.args[sessionsFlag + 1]) : 200;
const delayFlag = Deno.args.indexOf("--delay-ms");
/** Between deltas: 20 ms is 50 tokens/s per session, a fast hosted model. */
const DELAY_MS = delayFlag >= 0 ? Number(Deno.args[delayFlag + 1]) : 20;
const ANSWER = "abcd".repeat(40);
const now = () => performance.timeOrigin + performance.now();

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function helper(task: Record<string, unknown>): Promise<unknown> {
  const worker = new Worker(new URL("./_bench_chat_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise((resolve) => {
    worker.onmessage = (event) => {
      resolve(event.data);
      if (task.role !== "llm") worker.terminate();
    };
    worker.postMessage(task);
  });
}

const { openaiUrl } = await helper({ role: "llm", answer: ANSWER, delayMs: DELAY_MS }) as {
  openaiUrl: string;
};
const env: Record<string, string> = { OPENAI_API_KEY: "sk-bench-0000000000000000" };
const model = createLanguageModel(
  resolveModelConfig("openai", {
    env: (name) => env[name],
    flags: { endpoint: openaiUrl, live: true },
  }),
);

/** The model, noting when each delta reaches the session. */
function timedModel(deltaTimes: number[]): LanguageModel {
  return {
    provider: model.provider,
    model: model.model,
    endpoint: model.endpoint,
    mode: model.mode,
    generate: (request) => model.generate(request),
    async *stream(request) {
      for await (const event of model.stream(request)) {
        if (event.type === "text-delta") deltaTimes.push(now());
        yield event;
      }
    },
  };
}

async function raw(): Promise<{ first: number[]; gaps: number[] }> {
  const first: number[] = [];
  const gaps: number[] = [];
  await Promise.all(Array.from({ length: SESSIONS }, async () => {
    const start = now();
    let last = 0;
    for await (const event of model.stream({ messages: [{ role: "user", content: "go" }] })) {
      if (event.type !== "text-delta") continue;
      const time = now();
      if (last === 0) first.push(time - start);
      else gaps.push(time - last);
      last = time;
    }
  }));
  return { first, gaps };
}

async function gateway(
  bufferChunks: number,
): Promise<{ first: number[]; gaps: number[]; added: number[] }> {
  const config = { ...DEFAULT_CHAT_FLUX_CONFIG, buffer_chunks: bufferChunks, entropy_budget: 1000 };
  const deltas = new Map<string, number[]>();
  const chat = new ChatGateway({
    config,
    persistent: false,
    sessionTtlSeconds: 3600,
    openSession: (id) => {
      const times: number[] = [];
      deltas.set(id, times);
      return ChatSession.open({ id, model: timedModel(times), fallback: templateModel(), config });
    },
  });
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    chat.handle,
  );
  const results = await helper({
    role: "clients",
    sessions: SESSIONS,
    port: server.addr.port,
    prefix: `b${bufferChunks}`,
  }) as {
    id: string;
    start: number;
    chunks: number[];
  }[];
  chat.close();
  stop.abort();
  await server.finished;
  const first: number[] = [];
  const gaps: number[] = [];
  const added: number[] = [];
  for (const result of results) {
    first.push(result.chunks[0] - result.start);
    for (let i = 1; i < result.chunks.length; i++) {
      gaps.push(result.chunks[i] - result.chunks[i - 1]);
    }
    if (bufferChunks === 1) {
      const sent = deltas.get(result.id) ?? [];
      result.chunks.forEach((time, i) => sent[i] !== undefined && added.push(time - sent[i]));
    }
  }
  return { first, gaps, added };
}

const cell = (value: number) => value.toFixed(2).padStart(9);
function row(name: string, timing: { first: number[]; gaps: number[] }): void {
  console.log(
    `${name.padEnd(38)}${cell(quantile(timing.first, 0.5))}${cell(quantile(timing.first, 0.99))}${
      cell(quantile(timing.gaps, 0.5))
    }${cell(quantile(timing.gaps, 0.99))}`,
  );
}

await raw(); // warm-up
const rawTiming = await raw();
const every = await gateway(1);
const coalesced = await gateway(5);

console.log(
  `chat gateway, ${SESSIONS} concurrent sessions, a delta every ${DELAY_MS} ms each; provider, gateway and clients on three threads; ms`,
);
console.log(
  `${"".padEnd(38)}${"TTFC p50".padStart(9)}${"TTFC p99".padStart(9)}${"gap p50".padStart(9)}${
    "gap p99".padStart(9)
  }`,
);
row("raw lib/llm streams", rawTiming);
row("gateway, buffer_chunks=1", every);
row("gateway, buffer_chunks=5 (default)", coalesced);
console.log(
  `added per chunk (delta at the session → event at the client), ${every.added.length} chunks: ` +
    `p50 ${quantile(every.added, 0.5).toFixed(2)} ms, p99 ${
      quantile(every.added, 0.99).toFixed(2)
    } ms (goal ≤ 2 ms at p99)`,
);
console.log(
  `time to first chunk, gateway minus raw: p50 ${
    (quantile(every.first, 0.5) - quantile(rawTiming.first, 0.5)).toFixed(2)
  } ms, p99 ${(quantile(every.first, 0.99) - quantile(rawTiming.first, 0.99)).toFixed(2)} ms`,
);

const idle: ChatSession[] = [];
const before = Deno.memoryUsage().heapUsed;
for (let i = 0; i < 2000; i++) {
  idle.push(
    await ChatSession.open({
      id: `idle${i}`,
      model: templateModel(),
      fallback: templateModel(),
      config: DEFAULT_CHAT_FLUX_CONFIG,
    }),
  );
}
console.log(
  `heap per idle session (2000 sessions, no tools): ${
    ((Deno.memoryUsage().heapUsed - before) / idle.length / 1024).toFixed(1)
  } KiB`,
);
Deno.exit(0);
