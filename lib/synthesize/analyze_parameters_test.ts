import assert from "node:assert/strict";
import { sharedMissing, sharedPath } from "../../tests/fakes/shared.ts";
import { analyzeParameters, type SampleStep } from "./analyze_parameters.ts";

Deno.test("analyzeParameters() finds external, wired, constant and ambiguous parameters", () => {
  const sample = (query: string, url: string, extra: string): SampleStep[] => [
    {
      tool_id: "search",
      input_params: { query, limit: 5 },
      output_summary: JSON.stringify({ hits: [{ link: url }] }),
    },
    {
      tool_id: "read",
      input_params: { url, format: "json", note: extra },
      output_summary: "page text",
    },
  ];
  const analysis = analyzeParameters([
    sample("blue shaders", "https://a.example/1", "x"),
    sample("red tones", "https://b.example/2", "y"),
  ]);
  assert.deepEqual(analysis.external, [{ name: "query", type: "string", step: 0 }]);
  assert.deepEqual(analysis.constants, [{ step: 0, key: "limit", value: 5 }, {
    step: 1,
    key: "format",
    value: "json",
  }]);
  assert.deepEqual(analysis.internal_wires, [{
    from_step: 0,
    from_key: "link",
    to_step: 1,
    to_key: "url",
  }]);
  assert.deepEqual(analysis.ambiguous, [{ step: 1, key: "note" }]);
});

const TAU = "conformance/agent-traces/tau-bench/sessions.jsonl";

Deno.test({
  name: "analyzeParameters() wires tau-bench's get_user_details → get_reservation_details by value",
  ignore: sharedMissing(TAU),
  async fn() {
    const samples: SampleStep[][] = [];
    for (const line of (await Deno.readTextFile(sharedPath(TAU))).split("\n")) {
      if (!line.trim() || samples.length >= 10) continue;
      const calls = JSON.parse(line).calls as {
        name: string;
        args: Record<string, unknown>;
        output?: string;
      }[];
      for (let i = 0; i + 1 < calls.length; i++) {
        if (
          calls[i].name === "get_user_details" && calls[i + 1].name === "get_reservation_details"
        ) {
          samples.push(
            [i, i + 1].map((at) => ({
              tool_id: calls[at].name,
              input_params: calls[at].args,
              output_summary: calls[at].output ?? null,
            })),
          );
          break;
        }
      }
    }
    assert.ok(samples.length >= 5, `only ${samples.length} samples`);
    const analysis = analyzeParameters(samples);
    assert.deepEqual(analysis.internal_wires, [{
      from_step: 0,
      from_key: "reservations",
      to_step: 1,
      to_key: "reservation_id",
    }]);
    assert.deepEqual(analysis.external.map((parameter) => parameter.name), ["user_id"]);
  },
});

Deno.test("analyzeParameters() learns no secret-named value and no value the session returned as a constant", () => {
  const sample = (user: string): SampleStep[] => [
    { tool_id: "place_order", input_params: { item: user }, output_summary: '{"order_id": 12446}' },
    {
      tool_id: "notify",
      input_params: { order: 12446, token: "tok-shared", channel: "email", tag: "vip" },
      output_summary: "sent",
    },
  ];
  const analysis = analyzeParameters([sample("a"), sample("b"), sample("c")], {
    // Before the chain, each session's lookup returned the tag it then passed on.
    earlierOutputs: [['{"tags": ["vip"]}'], ['{"tags": ["vip"]}'], ['{"tags": ["vip"]}']],
  });
  assert.deepEqual(analysis.constants, [{ step: 1, key: "channel", value: "email" }]);
  assert.deepEqual(analysis.internal_wires, [
    { from_step: 0, from_key: "order_id", to_step: 1, to_key: "order" },
  ]);
  assert.deepEqual(analysis.ambiguous, [{ step: 1, key: "tag" }, { step: 1, key: "token" }]);
});

Deno.test("analyzeParameters() wires from any earlier step, the nearest that holds the value", () => {
  const sample = (a: string, b: string): SampleStep[] => [
    { tool_id: "zip", input_params: { city: `city-${a}` }, output_summary: `{"zipcode": "${a}"}` },
    { tool_id: "zip", input_params: { city: `city-${b}` }, output_summary: `{"zipcode": "${b}"}` },
    {
      tool_id: "distance",
      input_params: { from_zip: a, to_zip: b },
      output_summary: '{"distance": 1}',
    },
  ];
  const analysis = analyzeParameters([sample("83214", "74532"), sample("30211", "83214")]);
  assert.deepEqual(analysis.internal_wires, [
    { from_step: 0, from_key: "zipcode", to_step: 2, to_key: "from_zip" },
    { from_step: 1, from_key: "zipcode", to_step: 2, to_key: "to_zip" },
  ]);
  const same = analyzeParameters([sample("83214", "83214"), sample("30211", "30211")]);
  assert.deepEqual(
    same.internal_wires.map((wire) => wire.from_step),
    [1, 1],
    "of several earlier outputs holding it, the nearest",
  );
});

Deno.test("returnedBy(): a JSON scalar, or a token of its own in text, never part of a longer one", async () => {
  const { returnedBy } = await import("./analyze_parameters.ts");
  assert.equal(returnedBy('{"order_id": 12446}', 12446), true);
  assert.equal(returnedBy("Order 12446 placed.", 12446), true);
  assert.equal(returnedBy("Order 124460 placed", 12446), false);
  assert.equal(returnedBy("listing of /srv/notes:", "/srv/notes"), true);
  assert.equal(returnedBy("ENOENT: open '/srv/notes/missing-1.txt'", "/srv/notes"), false);
  assert.equal(returnedBy("tags: vip, new", "vip"), true);
  assert.equal(returnedBy("tags: vipers", "vip"), false);
  assert.equal(returnedBy("a (b) c", "(b)"), true, "special characters are taken literally");
  assert.equal(returnedBy(null, "x"), false);
});
