import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { fakeIo } from "./fakes/cli_io.ts";
import { sharedMissing, sharedPath } from "./fakes/shared.ts";

const BFCL = "conformance/agent-traces/bfcl-multi-turn/sessions.jsonl";

async function syn(args: string[], cwd: string) {
  const io = fakeIo({ cwd });
  const code = await runCli(["synthesize", ...args], io, COMMANDS);
  return { code, out: io.out(), err: io.err() };
}

function event(session: string, index: number, tool: string) {
  return JSON.stringify({
    event_id: `${session}-${index}`,
    session_id: session,
    tool_id: tool,
    input_params: {},
    output_summary: null,
    outcome: "SUCCESS",
    latency_ms: 10 * (index + 1),
    ts: 1_700_000_000 + index,
  });
}

Deno.test("syn synthesize mine ranks the chains of the stored sessions", async () => {
  const dir = await Deno.makeTempDir();
  const lines = [
    ...["kb.search", "kb.fetch", "answer"].map((tool, i) => event("a", i, tool)),
    ...["kb.search", "kb.fetch"].map((tool, i) => event("b", i, tool)),
    ...["other", "kb.search"].map((tool, i) => event("c", i, tool)),
  ];
  await Deno.writeTextFile(join(dir, "events.jsonl"), lines.join("\n") + "\n");
  assert.equal((await syn(["ingest", "events.jsonl", "--state-dir", "st"], dir)).code, 0);
  const mined = await syn(["mine", "--state-dir", "st", "--json"], dir);
  assert.equal(mined.code, 0, mined.err);
  const result = JSON.parse(mined.out);
  assert.equal(result.sessions, 3);
  assert.equal(result.chains[0].chain, "kb.search>kb.fetch");
  assert.equal(result.chains[0].sessions, 2);
  assert.equal(result.chains[0].confidence, 2 / 3);
  assert.equal(result.chains[0].avg_latency_ms, 30);
  const table = await syn(["mine", "--state-dir", "st", "--top", "1"], dir);
  assert.match(table.out, /66\.7% {2}0\.67 +2 +30 ms {2}kb\.search>kb\.fetch/);
  assert.match(table.out, /occurrences, mean latency\)/);
  assert.equal(result.latency_recorded, true);
  const empty = await syn(["mine", "--state-dir", "nothing"], dir);
  assert.equal(empty.code, 2);
  assert.match(empty.err, /run 'syn synthesize ingest' first/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name: "syn synthesize mine finds the BFCL macro lockDoors>pressBrakePedal>startEngine",
  ignore: sharedMissing(BFCL),
  async fn() {
    const dir = await Deno.makeTempDir();
    assert.equal(
      (await syn(["ingest", "--format", "bfcl", sharedPath(BFCL), "--state-dir", "st"], dir)).code,
      0,
    );
    const mined = await syn(["mine", "--state-dir", "st", "--min-length", "3", "--json"], dir);
    const chain = JSON.parse(mined.out).chains.find((item: { chain: string }) =>
      item.chain === "lockDoors>pressBrakePedal>startEngine"
    );
    // 38 of the 200 base sequences, and the same in each of the near-duplicate sets.
    assert.equal(chain.sessions, 152);
    assert.equal(chain.sample_event_ids.length, 20);
    assert.equal(JSON.parse(mined.out).latency_recorded, false, "the corpus has no latencies");
    const table = await syn(["mine", "--state-dir", "st", "--top", "1"], dir);
    assert.match(table.out, /\(support, confidence, occurrences; no latency recorded\)\n/);
    assert.doesNotMatch(table.out, / 0 ms /);
    await Deno.remove(dir, { recursive: true });
  },
});
