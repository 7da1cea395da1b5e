import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { seededRandom } from "../../tests/fakes/random.ts";
import { applyNotesPatch, emptyChatState, parseNotesPatch, runNotesActions } from "./chat_state.ts";
import { affordableTier, entropyForTier, maxTokensForTier } from "./chat_flux_config.ts";
import { EntropyBucket } from "./entropy_bucket.ts";
import { composeTraces, createTurn, type Turn, turnFromDict, turnToDict } from "./turn.ts";

function randomTurn(random: () => number): Turn {
  const text = Array.from(
    { length: Math.floor(random() * 20) },
    () => String.fromCodePoint(32 + Math.floor(random() * 2000)),
  ).join("");
  return createTurn({
    content: text,
    source: "kgent-soul",
    turn_type: (["SPEECH", "ACTION", "THOUGHT", "YIELD"] as const)[Math.floor(random() * 4)],
    state_hash_pre: random().toString(16),
    state_hash_post: random().toString(16),
    confidence: random(),
    entropy_cost: random() / 10,
    timestamp: random() * 2e9,
  });
}

Deno.test("turnFromDict(turnToDict(t)) equals t for random turns, also through JSON", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 500; i++) {
    const turn = randomTurn(random);
    assert.deepEqual(turnFromDict(turnToDict(turn)), turn);
    assert.deepEqual(turnFromDict(JSON.parse(JSON.stringify(turnToDict(turn)))), turn);
  }
});

Deno.test("turnFromDict() names the broken field", () => {
  const dict = turnToDict(randomTurn(seededRandom(1)));
  assert.throws(() => turnFromDict({ ...dict, turn_type: "SHOUT" }), /turn_type/);
  assert.throws(() => turnFromDict({ ...dict, confidence: "high" }), /confidence/);
  assert.throws(() => turnFromDict(null), /object/);
});

Deno.test("composeTraces() is associative with the empty trace as identity", () => {
  const random = seededRandom(3);
  for (let i = 0; i < 100; i++) {
    const [a, b, c] = [0, 1, 2].map(() =>
      Array.from({ length: Math.floor(random() * 4) }, () => randomTurn(random))
    );
    assert.deepEqual(composeTraces(composeTraces(a, b), c), composeTraces(a, composeTraces(b, c)));
    assert.deepEqual(composeTraces([], a), a);
    assert.deepEqual(composeTraces(a, []), a);
  }
});

Deno.test("budget tiers map to the spec's tokens and entropy, degrading to WHISPER", () => {
  assert.deepEqual(
    ["DORMANT", "WHISPER", "DIALOGUE", "DEEP"].map((tier) => maxTokensForTier(tier as "DEEP")),
    [0, 100, 4000, 8000],
  );
  assert.equal(entropyForTier("DIALOGUE"), 0.04);
  assert.equal(affordableTier("DIALOGUE", 0.05), "DIALOGUE");
  assert.equal(affordableTier("DIALOGUE", 0.01), "WHISPER");
  assert.equal(affordableTier("DEEP", 0.0005), undefined);
});

Deno.test("EntropyBucket spends, refuses and refills, saying when to retry", () => {
  const clock = new FakeClock(0);
  const bucket = new EntropyBucket(0.1, { refillSeconds: 60, clock });
  assert.equal(bucket.trySpend(0.08), true);
  assert.equal(bucket.trySpend(0.04), false);
  assert.equal(bucket.retryAfterSeconds(0.04), 12);
  clock.current = 12_000;
  assert.equal(bucket.trySpend(0.04), true);
  assert.equal(bucket.retryAfterSeconds(1), Number.POSITIVE_INFINITY);
});

Deno.test("NOTES patches change state; unknown keys and actions are reported, not fatal", () => {
  const { patch, problems } = parseNotesPatch({
    set_goals: ["ship"],
    add_open_loops: ["a", "b"],
    close_open_loops: ["a"],
    add_decisions: ["use deno"],
    set_episode_summary: "so far",
    bogus: 1,
    add_constraints: "not a list",
    actions: [
      "condense_now",
      "request_permission:net:example.com",
      "grant_permission:net",
      "dance",
    ],
  });
  assert.deepEqual(problems, [
    "unknown key ignored: bogus",
    "add_constraints must be a list of strings",
  ]);
  const state = applyNotesPatch(emptyChatState(), patch);
  assert.deepEqual(state.goals, ["ship"]);
  assert.deepEqual(state.open_loops, ["b"]);
  assert.equal(state.episode_summary, "so far");
  const ran = runNotesActions(state, patch.actions ?? []);
  assert.deepEqual(ran.condense, ["condense_now"]);
  assert.deepEqual(ran.state.capabilities_pending, ["net:example.com"]);
  assert.deepEqual(ran.state.capabilities_granted, [], "a model must not grant itself");
  assert.deepEqual(ran.outcomes.map((outcome) => outcome.applied), [true, true, false, false]);
  assert.deepEqual(parseNotesPatch([1]).problems, ["NOTES payload must be a JSON object"]);
});
