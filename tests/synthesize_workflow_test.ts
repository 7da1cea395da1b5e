/**
 * `syn synthesize run | validate | approve | list` on a corpus built here: a search whose
 * hit id the next call fetches, a fixed format, and sessions with and without failures.
 * Checks the tool written, validation by replay (wiring, equivalence, latency, error
 * parity), the DRAFT → TESTING → PROMOTED workflow with syn.jsonc, and refusals.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import {
  openSqliteEventStore,
  parseSynthesizeConfig,
  type ToolEvent,
  validateByReplay,
} from "../lib/synthesize/mod.ts";
import { fakeIo } from "./fakes/cli_io.ts";

/** `sessions` sessions of search → fetch; `broken` of them fetch a doc the search never found. */
function corpus(
  sessions: number,
  options: { broken?: number; failures?: number } = {},
): ToolEvent[] {
  const events: ToolEvent[] = [];
  for (let index = 0; index < sessions; index++) {
    const id = `doc-${1000 + index}`;
    const fetched = index < (options.broken ?? 0) ? `doc-x${index}` : id;
    const failed = index >= sessions - (options.failures ?? 0);
    const base = { session_id: `s${String(index).padStart(3, "0")}` };
    const ts = 1_700_000_000 + index * 60;
    events.push({
      ...base,
      event_id: `e${index}-0`,
      tool_id: "kb.search",
      input_params: { query: `question ${index}` },
      output_summary: JSON.stringify({ hits: [{ doc_id: id }] }),
      outcome: "SUCCESS",
      latency_ms: 120,
      ts,
      ts_ms: ts * 1000,
    });
    events.push({
      ...base,
      event_id: `e${index}-1`,
      tool_id: "kb.fetch",
      input_params: { doc_id: fetched, format: "md" },
      output_summary: failed ? null : `the text of ${fetched}`,
      outcome: failed ? "FAILURE" : "SUCCESS",
      latency_ms: 80,
      ts: ts + 1,
      ts_ms: (ts + 1) * 1000,
    });
  }
  return events;
}

async function stateWith(events: ToolEvent[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "syn_synth_flow_" });
  await using store = openSqliteEventStore(join(dir, ".syn"));
  await store.append(events);
  return dir;
}

async function syn(dir: string, args: string[]) {
  const io = fakeIo({ cwd: dir });
  const code = await runCli(["synthesize", ...args], io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

const TOOL = "kb.search-then-kb.fetch";

Deno.test("run writes a checked DRAFT; validate replays it; approve promotes only what passed", async () => {
  const dir = await stateWith(corpus(12));
  try {
    const ran = await syn(dir, ["run", "kb.search>kb.fetch", "--json"]);
    assert.equal(ran.code, 0, ran.stderr);
    const [written] = JSON.parse(ran.stdout).tools;
    assert.equal(written.status, "DRAFT");
    assert.deepEqual(written.tool.internal_wiring, [
      { from_step: 0, from_key: "doc_id", to_step: 1, to_key: "doc_id" },
    ]);
    assert.deepEqual(written.tool.steps[1].inputs.format, { constant: "md" });

    const refused = await syn(dir, ["approve", TOOL, "--promote"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is a DRAFT: it has not been validated/);

    const validated = await syn(dir, ["validate", TOOL, "--json"]);
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const { status, validation } = JSON.parse(validated.stdout);
    assert.equal(status, "TESTING", "require_approval defaults to true");
    assert.equal(validation.sessions.length, 10, "min_replay_sessions, newest first");
    assert.equal(validation.sessions[0], "s011");
    assert.deepEqual(validation.wiring, { checked: 10, held: 10 });
    assert.ok(validation.equivalence.mean_similarity > 1 - 1e-9);
    assert.equal(validation.latency.ratio, 1);

    const replayOnly = await syn(dir, ["approve", TOOL, "--promote"]);
    assert.equal(replayOnly.code, 1, "replay alone never promotes by default");
    assert.match(
      replayOnly.stderr,
      /validated on replay alone, never executed: .*--allow-replay-only/,
    );
    const promoted = await syn(dir, ["approve", TOOL, "--promote", "--allow-replay-only"]);
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.match(
      promoted.stdout,
      /PROMOTED {2}kb\.search-then-kb\.fetch {2}\(replay only: never executed\)/,
    );
    const listed = await syn(dir, ["list"]);
    assert.match(listed.stdout, /^PROMOTED +kb\.search-then-kb\.fetch .*promoted on replay only/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("validate says the score rests on replay alone, and when no latency was recorded", async () => {
  const timed = await stateWith(corpus(12));
  const untimed = await stateWith(corpus(12).map((event) => ({ ...event, latency_ms: 0 })));
  try {
    for (const [dir, recorded] of [[timed, true], [untimed, false]] as const) {
      assert.equal((await syn(dir, ["run", "kb.search>kb.fetch"])).code, 0);
      const json = await syn(dir, ["validate", TOOL, "--json"]);
      const { validation } = JSON.parse(json.stdout);
      assert.equal(validation.evidence, "replay");
      assert.equal(validation.latency.recorded, recorded);
      const text = (await syn(dir, ["validate", TOOL])).stdout;
      assert.match(text, /replay only: where the steps are called as recorded, the recorded/);
      if (recorded) assert.match(text, /latency +2000 ms vs 2000 ms recorded: ratio 1\.000/);
      else {
        assert.match(text, /latency +no latency recorded \(every replayed step has 0 ms\)/);
        assert.doesNotMatch(text, /0 ms vs 0 ms/);
      }
    }
  } finally {
    await Deno.remove(timed, { recursive: true });
    await Deno.remove(untimed, { recursive: true });
  }
});

Deno.test("validation fails a tool whose wiring does not hold in the replayed sessions", async () => {
  const dir = await stateWith(corpus(12, { broken: 0 }));
  try {
    await syn(dir, ["run", "kb.search>kb.fetch"]);
    // The newest sessions fetch other documents than the search found.
    await using store = openSqliteEventStore(join(dir, ".syn"));
    await store.append(
      corpus(30, { broken: 30 }).map((event) => ({
        ...event,
        event_id: `late-${event.event_id}`,
        session_id: `late-${event.session_id}`,
        ts: (event.ts as number) + 10_000_000,
      })),
    );
    const validated = await syn(dir, ["validate", TOOL, "--json"]);
    assert.equal(validated.code, 1);
    const { status, validation } = JSON.parse(validated.stdout);
    assert.equal(status, "DRAFT");
    assert.equal(validation.wiring.held, 0);
    assert.match(validation.reasons.join(), /mean similarity 0\.000 is below 0\.95/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syn.jsonc: fewer replay sessions, exact_match, no approval step; too few sessions is an error", async () => {
  const dir = await stateWith(corpus(4));
  try {
    await syn(dir, ["run", "--top", "1"]);
    const tooFew = await syn(dir, ["validate", TOOL]);
    assert.equal(tooFew.code, 1);
    assert.match(tooFew.stderr, /only 4 session\(s\) contain the chain; validation needs 10/);
    const tooFewJson = await syn(dir, ["validate", TOOL, "--json"]);
    assert.equal(tooFewJson.code, 1);
    const said = JSON.parse(tooFewJson.stdout);
    assert.equal(said.status, "DRAFT");
    assert.match(said.insufficient, /only 4 session\(s\)/);
    await Deno.writeTextFile(
      join(dir, "syn.jsonc"),
      `// replay what we have\n{"huginn": {"validation": {"min_replay_sessions": 3, "similarity_method": "exact_match",},\n "synthesis": {"require_approval": false}}}`,
    );
    const validated = await syn(dir, ["validate", TOOL, "--json"]);
    assert.equal(validated.code, 0, validated.stderr);
    const { status, validation } = JSON.parse(validated.stdout);
    assert.equal(status, "TESTING", "no approval step, but replay alone does not promote");
    assert.equal(validation.equivalence.method, "exact_match");
    const accepted = await syn(dir, ["validate", TOOL, "--json", "--allow-replay-only"]);
    assert.equal(JSON.parse(accepted.stdout).status, "PROMOTED");
    const bad = await syn(dir, ["validate", TOOL, "--config", "missing.jsonc"]);
    assert.equal(bad.code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("error parity: a failure the strategy does not cover fails validation", async () => {
  const dir = await stateWith(corpus(12, { failures: 1 }));
  try {
    await using store = openSqliteEventStore(join(dir, ".syn"));
    await syn(dir, ["run", "kb.search>kb.fetch"]);
    const entry = JSON.parse(
      await Deno.readTextFile(join(dir, ".syn", "synthesized", `${TOOL}.json`)),
    );
    assert.deepEqual(entry.tool.error_strategy.retry_policy, [
      { step: 1, max_retries: 2, backoff_ms: 1000, backoff_factor: 2 },
    ]);
    const config = parseSynthesizeConfig("{}", "x").validation;
    const covered = await validateByReplay(store, entry.tool, { config });
    assert.equal(covered.error_parity, true);
    const bare = { ...entry.tool, error_strategy: { default_behavior: "abort" } };
    const uncovered = await validateByReplay(store, bare, { config });
    assert.equal(uncovered.error_parity, false);
    assert.deepEqual(uncovered.unhandled_failures, [{
      session_id: "s011",
      step: 1,
      outcome: "FAILURE",
    }]);
    assert.equal(uncovered.passed, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syn.jsonc refuses unknown keys and wrong values, naming them", () => {
  assert.throws(
    () => parseSynthesizeConfig('{"validation": {"min_replay": 3}}', "syn.jsonc"),
    /unknown key "validation\.min_replay"/,
  );
  assert.throws(
    () => parseSynthesizeConfig('{"validation": {"similarity_method": "bleu"}}', "syn.jsonc"),
    /similarity_method/,
  );
  assert.throws(
    () => parseSynthesizeConfig('{"mining": {}}', "syn.jsonc"),
    /unknown section "mining"/,
  );
  const config = parseSynthesizeConfig("/* all defaults */ {}", "syn.jsonc");
  assert.equal(config.validation.equivalence_threshold, 0.95);
  assert.equal(config.synthesis.max_parallel_steps, 3);
});

Deno.test("run and validate: usage errors exit 2", async () => {
  const dir = await stateWith(corpus(3));
  try {
    for (
      const [args, pattern] of [
        [["run", "a>b"], /no mined chain a>b/],
        [
          ["run", "--engine", "bogus"],
          /--engine: the engine is one of deterministic, openai, anthropic, gemini/,
        ],
        [["validate"], /name the tool to validate/],
        [["validate", "nope"], /no synthesized tool nope/],
      ] as [string[], RegExp][]
    ) {
      const result = await syn(dir, args);
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.stderr, pattern);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syn synthesize alone runs the pipeline; report counts the calls the composites save", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_synth_pipe_" });
  try {
    const events = join(dir, "events.jsonl");
    await Deno.writeTextFile(
      events,
      corpus(12).map((event) => {
        const { ts_ms: _ms, ...line } = event;
        return JSON.stringify(line);
      }).join("\n") + "\n",
    );
    await Deno.writeTextFile(join(dir, "syn.jsonc"), '{"synthesis": {"require_approval": false}}');
    const io = fakeIo({ cwd: dir });
    const cautious = fakeIo({ cwd: dir });
    const first = await runCli(["synthesize", "--ingest", events, "--json"], cautious, COMMANDS);
    assert.equal(first, 0, cautious.err());
    assert.ok(
      cautious.err().includes("validate: kb.search-then-kb.fetch: TESTING [replay only]\n"),
      cautious.err(),
    );
    assert.match(cautious.out(), /"status": "TESTING"/);
    const code = await runCli(
      ["synthesize", "--ingest", events, "--json", "--allow-replay-only"],
      io,
      COMMANDS,
    );
    assert.equal(code, 0, io.err());
    for (
      const stage of [
        "ingest: 24 events from 1 input(s): 0 added, 24 duplicates\n",
        "mine: 12 sessions",
        "1 tool(s) written\n",
        "validate: kb.search-then-kb.fetch: PROMOTED [replay only]\n",
      ]
    ) {
      assert.ok(io.err().includes(`synthesize: ${stage}`), `${stage} in ${io.err()}`);
    }
    assert.deepEqual(JSON.parse(io.out()).tools, [{
      tool_id: TOOL,
      status: "PROMOTED",
      passed: true,
      evidence: "replay",
      latency_recorded: true,
      reason: null,
    }]);
    const report = await syn(dir, ["report", "--json"]);
    assert.equal(report.code, 0, report.stderr);
    const numbers = JSON.parse(report.stdout);
    assert.equal(numbers.calls, 24);
    assert.equal(numbers.calls_saved, 12, "one call saved per two-call chain");
    assert.equal(numbers.share_saved, 0.5);
    assert.deepEqual(numbers.rows[0].sessions, 12);
    const text = await syn(dir, ["report"]);
    assert.match(text.stdout, /total: 12 of 24 tool calls and as many LLM round trips \(50\.0 %\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A local server speaking OpenAI's chat completions wire, answering from a queue. */
function openAiServer(answers: unknown[]) {
  const requests: { messages: { role: string; content: string }[] }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    requests.push(await request.json());
    const content = JSON.stringify(answers.shift() ?? {});
    return Response.json({
      id: "c1",
      object: "chat.completion",
      model: "gpt-test",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("--engine openai: the spec's prompt, the five checks on the answer, one correction, then the tool", async () => {
  const dir = await stateWith(corpus(6));
  try {
    const offline = await syn(dir, ["run", "kb.search>kb.fetch", "--json"]);
    const good = JSON.parse(offline.stdout).tools[0].tool;
    const bad = {
      ...good,
      steps: good.steps.map((step: { tool_id: string }, index: number) =>
        index === 1 ? { ...step, tool_id: "kb.delete" } : step
      ),
    };
    await using server = openAiServer([bad, good]);
    const io = fakeIo({
      cwd: dir,
      env: {
        LABS_EXTERNAL_LIVE: "1",
        OPENAI_API_KEY: "sk-test-0000000000000000",
        OPENAI_ENDPOINT: server.url,
      },
    });
    const code = await runCli(
      ["synthesize", "run", "kb.search>kb.fetch", "--engine", "openai", "--json"],
      io,
      COMMANDS,
    );
    assert.equal(code, 0, io.err());
    const entry = JSON.parse(io.out()).tools[0];
    assert.equal(entry.engine, "openai");
    assert.deepEqual(entry.tool.steps.map((step: { tool_id: string }) => step.tool_id), [
      "kb.search",
      "kb.fetch",
    ]);
    assert.equal(server.requests.length, 2);
    const first = server.requests[0].messages.at(-1)!.content;
    assert.match(first, /^You are a tool composition engine\./);
    assert.match(first, /Tools: kb\.search → kb\.fetch/);
    assert.match(first, /- Step 0\.output\.doc_id → Step 1\.input\.doc_id/);
    assert.match(first, /Step 1: kb\.fetch\n {2}Input: \{"doc_id": "doc-1005", "format": "md"\}/);
    const second = server.requests[1].messages.at(-1)!.content;
    assert.match(
      second,
      /^The previous response had validation errors:\n\/steps\/1\/tool_id: kb\.delete is not step 1/,
    );

    await using failing = openAiServer([bad, bad]);
    const io2 = fakeIo({
      cwd: dir,
      env: {
        LABS_EXTERNAL_LIVE: "1",
        OPENAI_API_KEY: "sk-test-0000000000000000",
        OPENAI_ENDPOINT: failing.url,
      },
    });
    const refused = await runCli(
      ["synthesize", "run", "kb.search>kb.fetch", "--engine", "openai"],
      io2,
      COMMANDS,
    );
    assert.notEqual(refused, 0);
    assert.match(io2.err(), /fails its checks after 1 correction/);
    assert.equal(failing.requests.length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--engine gemini without LABS_EXTERNAL_LIVE answers in mock mode with the offline tool", async () => {
  const dir = await stateWith(corpus(6));
  try {
    const ran = await syn(dir, ["run", "kb.search>kb.fetch", "--engine", "gemini", "--json"]);
    assert.equal(ran.code, 0, ran.stderr);
    const entry = JSON.parse(ran.stdout).tools[0];
    assert.equal(entry.engine, "gemini");
    assert.deepEqual(entry.tool.internal_wiring[0].to_key, "doc_id");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the llm keys of syn.jsonc bound the provider's retries", async () => {
  const dir = await stateWith(corpus(4));
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response('{"error": {"message": "busy"}}', { status: 503 });
  });
  try {
    const live = {
      LABS_EXTERNAL_LIVE: "1",
      OPENAI_API_KEY: "sk-test-0000000000000000",
      OPENAI_ENDPOINT: `http://127.0.0.1:${server.addr.port}/v1`,
    };
    await Deno.writeTextFile(
      join(dir, "syn.jsonc"),
      '{"llm": {"max_retries": 1, "backoff_base_ms": 1, "timeout_seconds": 5}}',
    );
    const io = fakeIo({ cwd: dir, env: live });
    const code = await runCli(["synthesize", "run", "--engine", "openai"], io, COMMANDS);
    assert.notEqual(code, 0);
    assert.equal(requests, 2, "one attempt and max_retries = 1 retry");
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
