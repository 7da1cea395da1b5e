/**
 * `syn synthesize run` against a local OpenAI-compatible server: `llm_model` in syn.jsonc
 * picks the provider and the model when no `--engine` is named (live only), and
 * `retry_on` decides which HTTP statuses are retried.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { openSqliteEventStore, type ToolEvent } from "../lib/synthesize/mod.ts";
import { fakeIo } from "./fakes/cli_io.ts";

/** Six sessions of search → fetch, the fetch taking the search's hit. */
function corpus(): ToolEvent[] {
  return Array.from({ length: 6 }, (_, index) => {
    const id = `doc-${1000 + index}`;
    const ts = 1_700_000_000 + index * 60;
    const session_id = `s${index}`;
    return [
      {
        session_id,
        event_id: `e${index}-0`,
        tool_id: "kb.search",
        input_params: { query: `question ${index}` },
        output_summary: JSON.stringify({ hits: [{ doc_id: id }] }),
        outcome: "SUCCESS" as const,
        latency_ms: 120,
        ts,
        ts_ms: ts * 1000,
      },
      {
        session_id,
        event_id: `e${index}-1`,
        tool_id: "kb.fetch",
        input_params: { doc_id: id },
        output_summary: `the text of ${id}`,
        outcome: "SUCCESS" as const,
        latency_ms: 80,
        ts: ts + 1,
        ts_ms: (ts + 1) * 1000,
      },
    ];
  }).flat();
}

/** A local chat-completions server: answers from a list of statuses or tools, keeps requests. */
function openAiServer(answers: (number | unknown)[]) {
  const requests: { model: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    requests.push(await request.json());
    const answer = answers.shift();
    if (typeof answer === "number") {
      return Response.json({ error: { message: `status ${answer}` } }, { status: answer });
    }
    return Response.json({
      choices: [{
        index: 0,
        message: { role: "assistant", content: JSON.stringify(answer) },
        finish_reason: "stop",
      }],
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

async function run(dir: string, env: Record<string, string>) {
  const io = fakeIo({ cwd: dir, env });
  const code = await runCli(["synthesize", "run", "kb.search>kb.fetch", "--json"], io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

Deno.test("syn.jsonc's llm_model picks the provider and model live; retry_on decides the retries", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_synth_model_" });
  try {
    {
      await using store = openSqliteEventStore(join(dir, ".syn"));
      await store.append(corpus());
    }
    // Offline (no LABS_EXTERNAL_LIVE): the offline synthesizer, whatever llm_model says.
    await Deno.writeTextFile(
      join(dir, "syn.jsonc"),
      `{"huginn": {"synthesis": {"llm_model": "gpt-4o"}, "llm": {"retry_on": [429]}}}`,
    );
    const offline = await run(dir, {});
    assert.equal(offline.code, 0, offline.stderr);
    const entry = JSON.parse(offline.stdout).tools[0];
    assert.equal(entry.engine, "deterministic");

    const live = (url: string) => ({
      LABS_EXTERNAL_LIVE: "1",
      OPENAI_API_KEY: "sk-test-0000000000000000",
      OPENAI_ENDPOINT: url,
    });
    await using answering = openAiServer([entry.tool]);
    const ran = await run(dir, live(answering.url));
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(JSON.parse(ran.stdout).tools[0].engine, "openai");
    assert.deepEqual(answering.requests.map((request) => request.model), ["gpt-4o"]);

    // 503 is not in this retry_on: one request, and the run fails.
    await using busy = openAiServer([503, entry.tool]);
    const refused = await run(dir, live(busy.url));
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /server_error/);
    assert.equal(busy.requests.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
