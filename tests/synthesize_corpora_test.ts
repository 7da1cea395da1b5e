/**
 * The whole pipeline on the public corpora: `syn synthesize --ingest … --top 3` writes,
 * validates and (without an approval step) promotes three composites, and `report` counts
 * what they would save — the figures docs/synthesize.md publishes. Skipped, with a
 * message, without `../shared`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { fakeIo } from "./fakes/cli_io.ts";
import { sharedMissing, sharedPath } from "./fakes/shared.ts";

const CORPORA = [
  {
    format: "taubench",
    file: "conformance/agent-traces/tau-bench/sessions.jsonl",
    sessions: 857,
    calls: 2697,
    saved: 239,
  },
  {
    format: "bfcl",
    file: "conformance/agent-traces/bfcl-multi-turn/sessions.jsonl",
    sessions: 1000,
    calls: 5886,
    saved: 328,
  },
];

for (const corpus of CORPORA) {
  Deno.test({
    name:
      `syn synthesize on ${corpus.format}: three composites, promoted on replay only when accepted by name, ${corpus.saved} calls saved`,
    ignore: sharedMissing(corpus.file),
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: `syn_corpus_${corpus.format}_` });
      try {
        await Deno.writeTextFile(
          join(dir, "syn.jsonc"),
          '{"synthesis": {"require_approval": false}}',
        );
        const io = fakeIo({ cwd: dir });
        const args = [
          "synthesize",
          "--ingest",
          sharedPath(corpus.file),
          "--format",
          corpus.format,
          "--top",
          "3",
          "--json",
        ];
        // Ingested traces cannot be executed: replay alone never promotes…
        const cautious = fakeIo({ cwd: dir });
        assert.equal(await runCli(args, cautious, COMMANDS), 0, cautious.err());
        const tested = JSON.parse(cautious.out()).tools as Record<string, unknown>[];
        assert.deepEqual(tested.map((tool) => tool.status), ["TESTING", "TESTING", "TESTING"]);
        // …unless the user accepts it by name.
        assert.equal(await runCli([...args, "--allow-replay-only"], io, COMMANDS), 0, io.err());
        const tools = JSON.parse(io.out()).tools as Record<string, unknown>[];
        assert.deepEqual(tools.map((tool) => tool.status), ["PROMOTED", "PROMOTED", "PROMOTED"]);
        // The corpora record no latencies, and replay reproduces recorded outputs: both said.
        for (const tool of tools) {
          assert.deepEqual([tool.evidence, tool.latency_recorded], ["replay", false]);
        }
        assert.match(
          cautious.err(),
          new RegExp(`ingest: ${corpus.calls} events from 1 input\\(s\\)`),
        );
        assert.match(io.err(), /PROMOTED \[replay only, no latency recorded\]/);
        const report = fakeIo({ cwd: dir });
        assert.equal(await runCli(["synthesize", "report", "--json"], report, COMMANDS), 0);
        const numbers = JSON.parse(report.out());
        assert.deepEqual([numbers.sessions, numbers.calls, numbers.calls_saved], [
          corpus.sessions,
          corpus.calls,
          corpus.saved,
        ]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
