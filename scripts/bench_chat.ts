/**
 * Chat gateway benchmarks (printed, never asserted):
 *
 *   deno run -A scripts/bench_chat.ts [--sessions 200] [--delay-ms 20] [--rounds 6]
 *
 * Three threads of one process: the mock OpenAI provider (real wire, 127.0.0.1, 40 deltas
 * `delay-ms` apart: 20 ms is 50 tokens/s per session, a fast hosted model), the WebSocket
 * clients, and between them the server under test. Two servers are measured the same way:
 * - the floor: a bare relay, `fetch` of the provider stream (read through one reused
 *   buffer, as `lib/llm` reads it) → one `send` per delta, with nothing else (no edge,
 *   sessions, markers, buffers, limits or timers), on `Deno.serve` + `Deno.upgradeWebSocket`;
 * - the gateway as `syn chat serve` runs it: `ChatGateway` behind the edge (`serveLocal`:
 *   Host, Origin, token, caps) on the same runtime server, `buffer_chunks` 1 so coalescing
 *   hides nothing.
 * "Added per chunk" is the time from a delta being parsed at the server (for the gateway:
 * reaching the session) to its chunk event reaching the client; the goal is that the
 * gateway adds ≤ 1 ms at p99 over the floor with 200 concurrent sessions. Every socket is open before the replies start; the replies
 * start all together (the worst case) or spread over one delta interval (independent users).
 * Each case runs a warm-up round of each server, then `rounds` measured rounds of each, the
 * two servers taking turns (A B B A …) so that the machine's drift falls on both alike.
 *
 * Also reported: the server thread's CPU and bytes allocated per delta, time to first chunk
 * against the raw `lib/llm` stream, gaps between chunks with `buffer_chunks` 1 and 5 (the
 * default), and heap per idle session.
 */
import { getHeapStatistics } from "node:v8";
import { loadConfig } from "../lib/core/mod.ts";
import { createLanguageModel, type LanguageModel, resolveModelConfig } from "../lib/llm/mod.ts";
import {
  ChatGateway,
  ChatSession,
  DEFAULT_CHAT_FLUX_CONFIG,
  templateModel,
} from "../lib/chat/mod.ts";
import { byteReader, newServerToken, serveLocal } from "../lib/core/mod.ts";
import type { ClientResult, ClientTask } from "./_bench_chat_worker.ts";

function flag(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}
const SESSIONS = flag("--sessions", 200);
/** Between deltas: 20 ms is 50 tokens/s per session, a fast hosted model. */
const DELAY_MS = flag("--delay-ms", 20);
const ROUNDS = flag("--rounds", 6);
const ANSWER = "abcd".repeat(40);
/** The first chunks of a reply, reported apart: they meet every other reply's start. */
const OPENING = 3;
const now = () => performance.timeOrigin + performance.now();

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

function helper<T>(task: Record<string, unknown>): Promise<T> {
  const worker = new Worker(new URL("./_bench_chat_worker.ts", import.meta.url), {
    type: "module",
  });
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      resolve(event.data);
      if (task.role !== "llm") worker.terminate();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(`bench helper failed: ${event.message}`));
    };
    worker.postMessage(task);
  });
}

const { openaiUrl } = await helper<{ openaiUrl: string }>({
  role: "llm",
  answer: ANSWER,
  delayMs: DELAY_MS,
});
const env: Record<string, string> = { OPENAI_API_KEY: "sk-bench-0000000000000000" };
const model = createLanguageModel(
  resolveModelConfig("openai", {
    config: loadConfig((name) => env[name]),
    flags: { endpoint: openaiUrl, live: true },
  }),
);

/** A server under test: its handler, and per session when each delta was parsed there. */
interface Subject {
  /** The bare runtime server, or the runtime server behind the edge with this token. */
  token?: string;
  handle: (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response;
  deltas: Map<string, number[]>;
  close(): void;
}

/** A floor: the provider's deltas relayed as chunk events, and nothing else. */
function bareRelay(): Subject {
  const deltas = new Map<string, number[]>();
  const handle = (request: Request): Response => {
    const id = new URL(request.url).searchParams.get("session") ?? "";
    const times: number[] = [];
    deltas.set(id, times);
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onmessage = () => void relay(socket, times);
    return response;
  };
  return { handle, deltas, close() {} };
}

async function relay(socket: { send(data: string): void }, times: number[]): Promise<void> {
  const upstream = await fetch(`${openaiUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
  });
  const decoder = new TextDecoder();
  let carry = "";
  let sequence = 0;
  const reader = byteReader(upstream.body!);
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    const bytes = step.value;
    const lines = (carry + decoder.decode(bytes, { stream: true })).split("\n");
    carry = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith("data: {")) continue;
      const content = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
      if (!content) continue;
      times.push(now());
      socket.send(JSON.stringify({
        event_type: "chunk",
        payload: { content, final: false, correlation_id: "c" },
        sequence: ++sequence,
        timestamp: Date.now() / 1000,
      }));
    }
  }
  socket.send(JSON.stringify({
    event_type: "done",
    payload: { correlation_id: "c" },
    sequence: ++sequence,
    timestamp: Date.now() / 1000,
  }));
}

/**
 * The model, noting when each delta reaches the session: on the session's `onTextDelta`
 * (called as `lib/llm` decodes the delta, as the floor's relay notes it right after its
 * parse).
 */
function timedModel(deltaTimes: number[]): LanguageModel {
  return {
    provider: model.provider,
    model: model.model,
    endpoint: model.endpoint,
    mode: model.mode,
    generate: (request) => model.generate(request),
    stream(request) {
      const sink = request.onTextDelta;
      const onTextDelta = (text: string) => {
        deltaTimes.push(now());
        sink(text);
      };
      return model.stream({ ...request, onTextDelta });
    },
  };
}

function gateway(bufferChunks: number): Subject {
  const config = { ...DEFAULT_CHAT_FLUX_CONFIG, buffer_chunks: bufferChunks, entropy_budget: 1000 };
  const deltas = new Map<string, number[]>();
  const chat = new ChatGateway({
    config,
    persistent: false,
    sessionTtlSeconds: 3600,
    maxSessions: SESSIONS * (ROUNDS + 2),
    maxSockets: SESSIONS * 2,
    maxSocketsPerPeer: SESSIONS * 2,
    peerEntropyBudget: 1000,
    openSession: (id) => {
      const times: number[] = [];
      deltas.set(id, times);
      return ChatSession.open({ id, model: timedModel(times), fallback: templateModel(), config });
    },
  });
  return {
    token: newServerToken(),
    handle: chat.handle,
    deltas,
    close: () => void chat.close(),
  };
}

/** Bytes this thread's heap has allocated so far (V8's count; collections do not lower it). */
function allocatedBytes(): number {
  return (getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes ?? NaN;
}

/** CPU time of this thread so far, ms (Linux; NaN elsewhere). */
function threadCpuMs(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/thread-self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 Hz ticks
  } catch {
    return NaN;
  }
}

interface Timing {
  /** Server-thread CPU per delta relayed in the measured rounds, µs. */
  cpuPerDelta: number;
  /** Bytes the server thread allocated per delta relayed in the measured rounds. */
  bytesPerDelta: number;
  first: number[];
  gaps: number[];
  added: number[];
  /** Added per chunk of the first `OPENING` chunks of each reply, and of the others. */
  opening: number[];
  later: number[];
  /** The p99 of added of each measured round. */
  roundP99: number[];
}

/** A running server under test, and what its measured rounds have cost the server thread. */
interface Running {
  subject: Subject;
  server: Deno.HttpServer<Deno.NetAddr>;
  stop: AbortController;
  timing: Timing;
  cpuMs: number;
  bytes: number;
  relayed: number;
}

function start(subject: Subject): Running {
  const stop = new AbortController();
  const options = { hostname: "127.0.0.1", port: 0, signal: stop.signal };
  const server = subject.token === undefined
    ? Deno.serve({ ...options, onListen() {} }, subject.handle)
    : serveLocal({ ...options, token: subject.token, maxRequests: SESSIONS * 2 }, subject.handle)
      .server;
  const timing: Timing = {
    cpuPerDelta: NaN,
    bytesPerDelta: NaN,
    first: [],
    gaps: [],
    added: [],
    opening: [],
    later: [],
    roundP99: [],
  };
  return { subject, server, stop, timing, cpuMs: 0, bytes: 0, relayed: 0 };
}

const relayedBy = (subject: Subject) =>
  [...subject.deltas.values()].reduce((sum, one) => sum + one.length, 0);

/** One round of every client against `one`; measured ones add to its timing. */
async function round(one: Running, spreadMs: number, name: string, measured: boolean) {
  const task: ClientTask = {
    role: "clients",
    sessions: SESSIONS,
    port: one.server.addr.port,
    prefix: name,
    spreadMs,
    token: one.subject.token,
  };
  const [cpu, bytes, relayed] = [threadCpuMs(), allocatedBytes(), relayedBy(one.subject)];
  const results = await helper<ClientResult[]>({ ...task });
  if (!measured) return;
  one.cpuMs += threadCpuMs() - cpu;
  one.bytes += allocatedBytes() - bytes;
  one.relayed += relayedBy(one.subject) - relayed;
  one.timing.roundP99.push(quantile(record(one.timing, results, one.subject.deltas), 0.99));
}

/**
 * The subjects side by side in one process: a warm-up round each, then `rounds` measured
 * rounds each, taken in turn (A B B A A B …) so that whatever else the machine does over
 * the run falls on every subject alike.
 */
async function measure(subjects: Subject[], spreadMs: number, rounds: number): Promise<Timing[]> {
  const running = subjects.map(start);
  try {
    for (const one of running) await round(one, spreadMs, "warm", false);
    for (let turn = 1; turn <= rounds; turn++) {
      const order = turn % 2 ? running : [...running].reverse();
      for (const one of order) await round(one, spreadMs, `r${turn}`, true);
    }
    for (const one of running) {
      one.timing.cpuPerDelta = one.cpuMs * 1000 / one.relayed;
      one.timing.bytesPerDelta = one.bytes / one.relayed;
    }
  } finally {
    for (const one of running) {
      one.subject.close();
      one.stop.abort();
      await one.server.finished;
    }
  }
  return running.map((one) => one.timing);
}

/** Adds one round's samples to `timing`; returns that round's added-per-chunk samples. */
function record(timing: Timing, results: ClientResult[], deltas: Map<string, number[]>): number[] {
  const added: number[] = [];
  for (const result of results) {
    timing.first.push(result.chunks[0] - result.start);
    for (let i = 1; i < result.chunks.length; i++) {
      timing.gaps.push(result.chunks[i] - result.chunks[i - 1]);
    }
    const parsed = deltas.get(result.id) ?? [];
    if (parsed.length !== result.chunks.length) continue; // coalesced: no one-to-one match
    result.chunks.forEach((time, i) => {
      added.push(time - parsed[i]);
      (i < OPENING ? timing.opening : timing.later).push(time - parsed[i]);
    });
  }
  timing.added.push(...added);
  return added;
}

async function raw(): Promise<{ first: number[]; gaps: number[] }> {
  const first: number[] = [];
  const gaps: number[] = [];
  await Promise.all(Array.from({ length: SESSIONS }, async () => {
    const start = now();
    let last = 0;
    const onTextDelta = () => {
      const time = now();
      if (last === 0) first.push(time - start);
      else gaps.push(time - last);
      last = time;
    };
    for await (
      const _ of model.stream({ messages: [{ role: "user", content: "go" }], onTextDelta })
    ) {
      // the finish event
    }
  }));
  return { first, gaps };
}

const ms = (value: number) => value.toFixed(2).padStart(8);
const range = (values: number[]) =>
  `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`.padStart(12);

await raw(); // warm-up
const rawTiming = await raw();
const cases: { name: string; spread: number; timing: Timing }[] = [];
for (const spread of [0, DELAY_MS]) {
  const [floor, ours] = await measure([bareRelay(), gateway(1)], spread, ROUNDS);
  cases.push({ name: "floor, Deno.serve", spread, timing: floor });
  cases.push({ name: "gateway", spread, timing: ours });
}
const [coalesced] = await measure([gateway(5)], 0, 1);

console.log(
  `chat gateway, ${SESSIONS} sessions, a delta every ${DELAY_MS} ms each (${
    Math.round(SESSIONS * 1000 / DELAY_MS)
  } deltas/s); provider, server and clients on three threads; ${ROUNDS} rounds of each server, in turn, after a warm-up`,
);
console.log(
  "added per chunk: delta parsed at the server → chunk event at the client, ms; CPU and bytes allocated: the server thread's, per delta relayed",
);
console.log(
  `${"".padEnd(20)}${"replies start".padEnd(22)}${"p50".padStart(8)}${"p99".padStart(8)}${
    "p99/round".padStart(12)
  }${`p99 first ${OPENING}`.padStart(13)}${"p99 rest".padStart(10)}${"CPU/delta".padStart(11)}${
    "bytes/delta".padStart(13)
  }`,
);
for (const { name, spread, timing } of cases) {
  const starts = spread ? `spread over ${spread} ms` : "together";
  console.log(
    `${name.padEnd(20)}${starts.padEnd(22)}${ms(quantile(timing.added, 0.5))}${
      ms(quantile(timing.added, 0.99))
    }${range(timing.roundP99)}${ms(quantile(timing.opening, 0.99)).padStart(13)}${
      ms(quantile(timing.later, 0.99)).padStart(10)
    }${`${timing.cpuPerDelta.toFixed(0)} µs`.padStart(11)}${
      `${(timing.bytesPerDelta / 1024).toFixed(1)} KiB`.padStart(13)
    }`,
  );
}
for (const spread of [0, DELAY_MS]) {
  const [floor, ours] = cases.filter((one) => one.spread === spread).map((one) =>
    quantile(one.timing.added, 0.99)
  );
  // What the gateway adds over a bare relay of the same stream on the same runtime server.
  const added = ours - floor;
  console.log(
    `gateway, replies ${spread ? "spread" : "together"}: adds ${added.toFixed(2)} ms at p99 over ` +
      `a bare relay (goal ≤ 1: ${added <= 1 ? "met" : "not met"}); p99 ${ours.toFixed(2)} ms ` +
      `from the delta to the client, the floor's ${floor.toFixed(2)}`,
  );
}
const together = cases.find((one) => one.name === "gateway" && one.spread === 0)!.timing;
console.log(
  `time to first chunk, ms: raw lib/llm stream p50 ${ms(quantile(rawTiming.first, 0.5))} p99 ${
    ms(quantile(rawTiming.first, 0.99))
  }; gateway (message sent → first chunk at the client) p50 ${
    ms(quantile(together.first, 0.5))
  } p99 ${ms(quantile(together.first, 0.99))}`,
);
console.log(
  `gap between chunks at the client, ms: raw p50/p99 ${ms(quantile(rawTiming.gaps, 0.5))}${
    ms(quantile(rawTiming.gaps, 0.99))
  }; buffer_chunks 1 ${ms(quantile(together.gaps, 0.5))}${
    ms(quantile(together.gaps, 0.99))
  }; buffer_chunks 5 (default) ${ms(quantile(coalesced.gaps, 0.5))}${
    ms(quantile(coalesced.gaps, 0.99))
  }`,
);

/** With `--v8-flags=--expose-gc` (as `deno task bench` runs it) the heap figure is steady. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const idle: ChatSession[] = [];
collect();
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
collect();
console.log(
  `heap per idle session (2000 sessions, no tools): ${
    ((Deno.memoryUsage().heapUsed - before) / idle.length / 1024).toFixed(1)
  } KiB`,
);
Deno.exit(0);
