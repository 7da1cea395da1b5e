/**
 * Ingest speed of the event stores: 100,000 events (10,000 sessions × 10 calls) as event
 * JSONL, ingested end to end (read, parse, schema check, store), then the same events
 * appended straight to a fresh store (the store's own share), then read back per session.
 *
 *   deno run -A scripts/bench_event_store.ts [events]
 *
 * SQLite always; Postgres at SYN_EVENT_STORE when it is a postgres:// URL, else on a
 * throwaway local cluster (default durability settings) when PostgreSQL binaries exist.
 */
import { join } from "node:path";
import {
  type EventStore,
  ingestSources,
  openPostgresEventStore,
  openSqliteEventStore,
  parseToolEvent,
  type ToolEvent,
} from "../lib/synthesize/mod.ts";
import { findPostgresBin, startPostgresCluster } from "../tests/fakes/postgres_cluster.ts";

const COUNT = Number(Deno.args[0] ?? 100_000);
const PER_SESSION = 10;
const TOOLS = ["kb.search", "kb.fetch", "kb.summarize", "fs.write_text"];

function record(index: number) {
  const session = Math.floor(index / PER_SESSION);
  return {
    event_id: `e${index}`,
    session_id: `session-${session}`,
    tool_id: TOOLS[index % TOOLS.length],
    input_params: { query: `question ${session}`, limit: 5, url: `https://example.com/${index}` },
    output_summary: `{"hits": 3, "url": "https://example.com/${index + 1}"}`,
    outcome: index % 50 === 0 ? "FAILURE" : "SUCCESS",
    latency_ms: 20 + (index % 300),
    ts: 1767225600 + session * 60 + (index % PER_SESSION),
  };
}

interface Row {
  store: string;
  ingestMs: number;
  appendMs: number;
  readMs: number;
}

async function measure(
  label: string,
  file: string,
  events: ToolEvent[],
  open: () => Promise<EventStore>,
): Promise<Row> {
  let started = performance.now();
  const first = await open();
  const report = await ingestSources(first, [{ path: file }], { format: "events" });
  const ingestMs = performance.now() - started;
  if (report.added !== COUNT) throw new Error(`${label}: ${report.added} of ${COUNT} added`);
  await first.close();
  const second = await open();
  started = performance.now();
  await second.append(events.map((event) => ({ ...event, event_id: `again-${event.event_id}` })));
  const appendMs = performance.now() - started;
  started = performance.now();
  let read = 0;
  for await (const session of second.scanSessions()) read += session.events.length;
  const readMs = performance.now() - started;
  if (read !== 2 * COUNT) throw new Error(`${label}: read ${read} events`);
  await second.close();
  return { store: label, ingestMs, appendMs, readMs };
}

if (import.meta.main) {
  const folder = Deno.makeTempDirSync({ prefix: "syn_bench_events_" });
  const file = join(folder, "events.jsonl");
  const lines: string[] = [];
  const events: ToolEvent[] = [];
  for (let index = 0; index < COUNT; index++) {
    const value = record(index);
    lines.push(JSON.stringify(value));
    events.push(await parseToolEvent(value));
  }
  Deno.writeTextFileSync(file, lines.join("\n") + "\n");
  const rows: Row[] = [];
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
  try {
    const sqliteDir = join(folder, "state");
    rows.push(
      await measure(
        "sqlite (WAL)",
        file,
        events,
        () => Promise.resolve(openSqliteEventStore(sqliteDir)),
      ),
    );
    let url = Deno.env.get("SYN_EVENT_STORE");
    if (!url?.startsWith("postgres")) {
      const bin = findPostgresBin();
      if (bin) {
        cluster = await startPostgresCluster(bin);
        url = cluster.url();
      } else {
        console.log("postgres: skipped (no SYN_EVENT_STORE and no PostgreSQL binaries)");
      }
    }
    if (url?.startsWith("postgres")) {
      rows.push(await measure("postgres", file, events, () => openPostgresEventStore(url!)));
    }
  } finally {
    await cluster?.stop();
    Deno.removeSync(folder, { recursive: true });
  }
  const mb = (lines.join("\n").length / 1024 / 1024).toFixed(1);
  console.log(`${COUNT} events in ${COUNT / PER_SESSION} sessions, ${mb} MiB of JSONL\n`);
  console.log(
    "store         | ingest file (events/s)   | append only (events/s)   | scan all (2× events)",
  );
  console.log(
    "--------------|--------------------------|--------------------------|---------------------",
  );
  for (const row of rows) {
    const rate = (ms: number, n = COUNT) =>
      `${(ms / 1000).toFixed(2)} s (${Math.round(n / (ms / 1000))}/s)`;
    console.log(
      `${row.store.padEnd(13)} | ${rate(row.ingestMs).padEnd(24)} | ${
        rate(row.appendMs).padEnd(24)
      } | ${rate(row.readMs, 2 * COUNT)}`,
    );
  }
}
