/**
 * A state folder and an event store are untrusted input: what `syn chat` and
 * `syn synthesize` do with planted registry entries and hostile events.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { openSqliteEventStore } from "../lib/synthesize/mod.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";

const AT = "2026-01-01T00:00:00.000Z";

function promoted(toolId: string, chain: string[]) {
  return {
    tool: {
      tool_id: toolId,
      description: "lists twice",
      source_chain: { tools: chain },
      parameters: { type: "object", properties: {} },
      steps: chain.map((tool_id, index) => ({
        step_index: index,
        tool_id,
        inputs: { path: { constant: "." } },
      })),
      internal_wiring: [],
      error_strategy: { default_behavior: "abort" },
    },
    status: "PROMOTED",
    engine: "deterministic",
    created_at: AT,
    updated_at: AT,
    validation: { passed: true, reasons: [], validated_at: AT },
  };
}

async function plant(stateDir: string, files: Record<string, unknown>): Promise<void> {
  await Deno.mkdir(join(stateDir, "synthesized"), { recursive: true });
  for (const [name, value] of Object.entries(files)) {
    await Deno.writeTextFile(join(stateDir, "synthesized", name), JSON.stringify(value));
  }
}

async function syn(cwd: string, args: string[]) {
  const io = fakeIo({ cwd });
  const code = await runCli(args, io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

Deno.test({
  name: "syn chat reads composites only from a state folder the user named, never from ./.syn",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_hostile_" }));
    try {
      await plant(join(dir, ".syn"), {
        "planted.json": promoted("planted", ["fs.list_dir", "fs.list_dir"]),
        "bad\u001b[2J.json": { nothing: true },
      });
      const root = join(dir, "root");
      await Deno.mkdir(root);
      const implicit = await runSyn(["chat", "--root", root], {
        stdin: "/tools\n/quit\n",
        cwd: dir,
      });
      assert.equal(implicit.code, 0, implicit.stderr);
      assert.match(implicit.stderr, /fs\.list_dir: /);
      assert.doesNotMatch(implicit.stderr, /composite\./);
      const named = await runSyn(["chat", "--root", root, "--state-dir", ".syn"], {
        stdin: "/tools\n/quit\n",
        cwd: dir,
      });
      assert.equal(named.code, 0, named.stderr);
      assert.match(named.stderr, /composite\.planted: Runs fs\.list_dir → fs\.list_dir/);
      assert.match(named.stderr, /chat: composite bad\\x1b\[2J\.json left out: /);
      assert.equal(named.stderr.includes("\u001b"), false, "no escape reaches the terminal");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("syn synthesize list neutralises what it prints, on stdout and stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_hostile_" });
  try {
    await plant(join(dir, ".syn"), {
      "spoof.json": promoted("spoof", ["fs.list_dir\u202egnp.exe", "fs.list_dir"]),
      "x\u001b]0;title\u0007.json": { nothing: true },
    });
    const listed = await syn(dir, ["synthesize", "list", "--state-dir", join(dir, ".syn")]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      /^PROMOTED {2}spoof {2}\(fs\.list_dir\\u202egnp\.exe>fs\.list_dir; passed /,
    );
    assert.match(listed.stderr, /skipped x\\x1b\]0;title\\x07\.json: /);
    for (const text of [listed.stdout, listed.stderr]) {
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u202e]/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syn synthesize run survives events nested too deeply to walk, wherever they came from", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_hostile_" });
  try {
    let deep: unknown = 1;
    for (let depth = 0; depth < 200_000; depth++) deep = { "": deep };
    const store = openSqliteEventStore(join(dir, ".syn"));
    const events = [0, 1, 2, 3, 4, 5].flatMap((session) =>
      ["kb.search", "kb.fetch"].map((tool_id, step) => ({
        event_id: `e${session}-${step}`,
        session_id: `s${session}`,
        tool_id,
        input_params: step === 0 ? { q: deep } : { q: "x" },
        output_summary: "ok",
        outcome: "SUCCESS" as const,
        latency_ms: 1,
        ts: `2026-01-01T00:00:0${session}Z`,
        ts_ms: Date.UTC(2026, 0, 1, 0, 0, session),
      }))
    );
    await store.append(events);
    await store.close();
    const ran = await syn(dir, ["synthesize", "run", "--state-dir", join(dir, ".syn")]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^DRAFT {2}kb\.search-then-kb\.fetch/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
