/**
 * Ingest across capabilities: the traces `lib/tools` really writes, and the two public
 * agent-trace corpora in ../shared (ignored with a visible message when absent).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { appendJsonl } from "../lib/core/mod.ts";
import {
  ingestSources,
  openSqliteEventStore,
  type SqliteEventStore,
} from "../lib/synthesize/mod.ts";
import { ToolSession } from "../lib/tools/mod.ts";
import { sharedMissing, sharedPath } from "./fakes/shared.ts";

const TAU = "conformance/agent-traces/tau-bench/sessions.jsonl";
const BFCL = "conformance/agent-traces/bfcl-multi-turn/sessions.jsonl";

function work(): { path: string; store: SqliteEventStore } & AsyncDisposable {
  const path = Deno.makeTempDirSync({ prefix: "syn_ingest_e2e_" });
  const store = openSqliteEventStore(join(path, ".syn"));
  return {
    path,
    store,
    async [Symbol.asyncDispose]() {
      await store.close();
      Deno.removeSync(path, { recursive: true });
    },
  };
}

/** Sessions (of those whose id starts with `prefix`) holding `chain` as consecutive calls. */
async function sessionsWithChain(store: SqliteEventStore, prefix: string, chain: string[]) {
  let count = 0;
  for await (const session of store.scanSessions()) {
    if (!session.session_id.startsWith(prefix)) continue;
    const tools = session.events.map((event) => event.tool_id);
    if (tools.some((_, start) => chain.every((tool, offset) => tools[start + offset] === tool))) {
      count++;
    }
  }
  return count;
}

Deno.test("a trace written by ToolSession ingests as one event per call", async () => {
  await using w = work();
  const root = join(w.path, "root");
  Deno.mkdirSync(root);
  const trace = join(w.path, "trace.jsonl");
  const session = await ToolSession.open({
    root,
    bubblewrap: "off",
    sessionId: "chat-7",
    trace: (event) => appendJsonl(trace, event),
  });
  try {
    await session.call({ id: "t1", tool: "fs.write_text", args: { path: "a.txt", text: "hi" } });
    await session.call({ id: "t2", tool: "fs.read_text", args: { path: "a.txt" } });
    await session.call({ id: "t3", tool: "fs.read_text", args: { path: "../escape" } });
  } finally {
    session.close();
  }
  const report = await ingestSources(w.store, [{ path: trace }], { format: "trace" });
  assert.deepEqual(
    [report.read, report.added, report.skipped, report.bad_total],
    [3, 3, 3, 0],
    JSON.stringify(report.bad),
  );
  const events = await w.store.getBySession("chat-7");
  assert.deepEqual(
    events.map((event) => [event.tool_id, event.outcome]),
    [["fs.write_text", "SUCCESS"], ["fs.read_text", "SUCCESS"], ["fs.read_text", "FAILURE"]],
  );
  assert.deepEqual(events[1].input_params, { path: "a.txt" });
  assert.match(events[1].output_summary ?? "", /"hi"/);
  assert.equal(typeof events[0].ts, "string");
  const again = await ingestSources(w.store, [{ path: trace }]);
  assert.deepEqual([again.added, again.duplicates], [0, 3]);
});

Deno.test({
  name: "the tau-bench corpus ingests with the counts of its ABOUT.md",
  ignore: sharedMissing(TAU),
  async fn() {
    await using w = work();
    const report = await ingestSources(w.store, [{ path: sharedPath(TAU) }], {
      format: "taubench",
    });
    // 885 sessions, 857 of them with at least one call; 1164 + 1375 + 158 calls.
    assert.deepEqual(
      [report.read, report.added, report.bad_total],
      [2697, 2697, 0],
      JSON.stringify(report.bad.slice(0, 3)),
    );
    assert.deepEqual(await w.store.stats(), { events: 2697, sessions: 857 });
    const sessions = await w.store.getSessions();
    const runs = sessions.filter((session) => session.session_id.startsWith("tau-airline-gpt-4o-"));
    assert.equal(runs.length, 182);
    assert.equal(runs.reduce((sum, session) => sum + session.events, 0), 1164);
    const retail = sessions.filter((session) => session.session_id.startsWith("tau-retail_"));
    assert.deepEqual([retail.length, retail.reduce((sum, s) => sum + s.events, 0)], [632, 1375]);
    // ABOUT.md's top pair of the agent runs: get_user_details → get_reservation_details, 97/97.
    const pair = ["get_user_details", "get_reservation_details"];
    assert.equal(await sessionsWithChain(w.store, "tau-airline-gpt-4o-", pair), 97);
    const first = await w.store.getBySession("tau-airline-gpt-4o-t0-r0");
    assert.equal(first[0].event_id, "tau-airline-gpt-4o-t0-r0:0");
    assert.equal(first[0].tool_id, "get_user_details");
    assert.deepEqual(first[0].input_params, { user_id: "mia_li_3668" });
    let failures = 0;
    for await (const session of w.store.scanSessions()) {
      failures += session.events.filter((event) => event.outcome === "FAILURE").length;
    }
    assert.equal(failures, 73, "outputs that start with Error:");
    const again = await ingestSources(w.store, [{ path: sharedPath(TAU) }]);
    assert.deepEqual([again.added, again.duplicates], [0, 2697]);
  },
});

Deno.test({
  name: "the BFCL multi-turn corpus ingests with the counts of its ABOUT.md",
  ignore: sharedMissing(BFCL),
  async fn() {
    await using w = work();
    const report = await ingestSources(w.store, [{ path: sharedPath(BFCL) }], { format: "bfcl" });
    // base + long_context + miss_func + miss_param: 4625 calls; composite: 1261.
    assert.deepEqual([report.read, report.added, report.bad_total], [5886, 5886, 0]);
    assert.deepEqual(await w.store.stats(), { events: 5886, sessions: 1000 });
    const base = (await w.store.getSessions()).filter((session) =>
      session.session_id.startsWith("multi_turn_base_")
    );
    assert.deepEqual([base.length, base.reduce((sum, s) => sum + s.events, 0)], [200, 1142]);
    // ABOUT.md: lockDoors → pressBrakePedal → startEngine in 38 of the 200 base sessions.
    const chain = ["lockDoors", "pressBrakePedal", "startEngine"];
    assert.equal(await sessionsWithChain(w.store, "multi_turn_base_", chain), 38);
    const outputs = (await w.store.getBySession("multi_turn_base_0")).map((e) => e.output_summary);
    assert.ok(outputs.every((output) => output === null), "the ground truth has no outputs");
  },
});
