import assert from "node:assert/strict";
import { seededRandom } from "../../tests/fakes/random.ts";
import { mineChains, type MiningSession } from "./mine_chains.ts";
import { referenceMineChains } from "./_reference_miner.ts";

function session(id: string, tools: string[], latency = 10): MiningSession {
  return {
    session_id: id,
    events: tools.map((tool_id, i) => ({ event_id: `${id}:${i}`, tool_id, latency_ms: latency })),
  };
}

Deno.test("mineChains() counts support per session, confidence from the prefix, latency and samples", () => {
  const sessions = [
    session("s1", ["search", "fetch", "summarize"]),
    session("s2", ["search", "fetch", "search", "fetch"]),
    session("s3", ["search", "other"], 5),
  ];
  const chains = mineChains(sessions);
  const byName = new Map(chains.map((chain) => [chain.chain, chain]));
  const pair = byName.get("search>fetch")!;
  assert.equal(pair.sessions, 2);
  assert.equal(pair.support, 2 / 3);
  assert.equal(pair.confidence, 2 / 3); // search is in all three sessions
  assert.equal(pair.occurrences, 3);
  assert.equal(pair.avg_latency_ms, 20);
  // Newest sessions first: s2's two occurrences, then s1's.
  assert.deepEqual(pair.sample_event_ids, ["s2:0", "s2:2", "s1:0"]);
  assert.equal(chains[0].chain, "search>fetch");
  assert.ok(chains.every((chain) => chain.tools.length >= 2));
});

Deno.test("mineChains() sorts by support, then longer first, then name; filters and cuts", () => {
  const sessions = [
    session("a", ["x", "y", "z"]),
    session("b", ["x", "y", "z"]),
    session("c", ["q", "r"]),
  ];
  assert.deepEqual(mineChains(sessions).map((chain) => chain.chain), [
    "x>y>z",
    "x>y",
    "y>z",
    "q>r",
  ]);
  assert.deepEqual(mineChains(sessions, { minSupport: 0.5 }).map((chain) => chain.chain), [
    "x>y>z",
    "x>y",
    "y>z",
  ]);
  assert.deepEqual(mineChains(sessions, { top: 1, minLength: 3 }).map((chain) => chain.chain), [
    "x>y>z",
  ]);
  assert.deepEqual(mineChains(sessions, { maxLength: 2 }).map((chain) => chain.chain), [
    "x>y",
    "y>z",
    "q>r",
  ]);
});

Deno.test("mineChains() collapses immediate repeats only when asked", () => {
  const sessions = [session("a", ["get", "get", "get", "update"])];
  assert.ok(
    !mineChains(sessions).some((chain) => chain.chain === "get>update" && chain.occurrences !== 1),
  );
  assert.ok(mineChains(sessions).some((chain) => chain.chain === "get>get"));
  const collapsed = mineChains(sessions, { collapseRepeats: true });
  assert.deepEqual(collapsed.map((chain) => chain.chain), ["get>update"]);
  assert.equal(collapsed[0].avg_latency_ms, 40);
});

Deno.test("mineChains() equals the reference miner on random corpora", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const random = seededRandom(seed);
    const tools = ["a", "b", "c", "d", "e"];
    const sessions = Array.from(
      { length: 1 + Math.floor(random() * 30) },
      (_, i) =>
        session(
          `s${i}`,
          Array.from(
            { length: Math.floor(random() * 12) },
            () => tools[Math.floor(random() * random() * 5)],
          ),
          Math.floor(random() * 50),
        ),
    );
    for (
      const options of [{}, { collapseRepeats: true }, { minSupport: 0.2, maxLength: 3 }, {
        top: 5,
        minLength: 1,
      }]
    ) {
      assert.deepEqual(
        mineChains(sessions, options),
        referenceMineChains(sessions, options),
        `seed ${seed} ${JSON.stringify(options)}`,
      );
    }
  }
});
