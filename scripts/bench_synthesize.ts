/**
 * Chain mining benchmark (printed, never asserted):
 *
 *   deno run -A scripts/bench_synthesize.ts [--sessions 100000] [--events-per-session 10]
 *
 * A seeded synthetic corpus — 100,000 sessions, 1,000,000 events, 60 tools with
 * Zipf-like popularity and five planted macros — mined in-process by `mineChains`
 * (goal: ≤ 5 s) and by the straightforward reference miner; both results must agree.
 */
import { parseArgs } from "node:util";
import { mineChains, type MiningSession } from "../lib/synthesize/mod.ts";
import { referenceMineChains } from "../lib/synthesize/_reference_miner.ts";
import { seededRandom } from "../tests/fakes/random.ts";

const { values } = parseArgs({
  options: { sessions: { type: "string" }, "events-per-session": { type: "string" } },
});
const SESSIONS = Number(values.sessions ?? 100_000);
const PER_SESSION = Number(values["events-per-session"] ?? 10);

const random = seededRandom(2026);
const tools = Array.from({ length: 60 }, (_, i) => `tool_${i}`);
const macros = [
  ["kb.search", "kb.fetch"],
  ["lockDoors", "pressBrakePedal", "startEngine"],
  ["get_user", "get_order", "refund"],
  ["ls", "cat"],
  ["http.get", "fs.write_text"],
];
function zipfTool(): string {
  return tools[Math.max(0, Math.min(tools.length - 1, Math.floor(1 / (random() + 0.02)) - 1))];
}
const sessions: MiningSession[] = [];
let events = 0;
for (let s = 0; s < SESSIONS; s++) {
  const list: MiningSession["events"][number][] = [];
  while (list.length < PER_SESSION) {
    const run = random() < 0.3 ? macros[Math.floor(random() * macros.length)] : [zipfTool()];
    for (const tool_id of run) {
      if (list.length >= PER_SESSION) break;
      list.push({
        event_id: `s${s}:${list.length}`,
        tool_id,
        latency_ms: Math.floor(random() * 200),
      });
    }
  }
  events += list.length;
  sessions.push({ session_id: `s${s}`, events: list });
}

function timed<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const result = fn();
  return [result, performance.now() - start];
}

const options = { minSupport: 0.001, maxLength: 6 };
const [fast, fastMs] = timed(() => mineChains(sessions, options));
const [slow, slowMs] = timed(() => referenceMineChains(sessions, options));
const agree = JSON.stringify(fast) === JSON.stringify(slow);
console.log(
  `chain mining, ${SESSIONS} sessions, ${events} events, max length 6, min support 0.001`,
);
console.log(
  `mineChains             ${
    (fastMs / 1000).toFixed(2).padStart(7)
  } s   ${fast.length} chains   goal ≤ 5 s`,
);
console.log(
  `reference miner        ${(slowMs / 1000).toFixed(2).padStart(7)} s   ${slow.length} chains`,
);
console.log(
  `results agree: ${agree ? "yes" : "NO"}; top chains: ${
    fast.slice(0, 3).map((chain) => `${chain.chain} (${chain.support.toFixed(3)})`).join(", ")
  }`,
);
