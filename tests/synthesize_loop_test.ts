/**
 * The loop chat → synthesize → chat, end to end: tool calls made through a tool session
 * (as chat makes them) leave traces; `syn synthesize` ingests them, mines the chain,
 * writes the composite, validates it by replay and promotes it; then a new session offers
 * `composite.<tool_id>` and runs it in the sandbox on a folder it has never seen, and the
 * chat REPL lists it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { registerPromotedComposites } from "../lib/synthesize/mod.ts";
import { baselineRegistry, ToolSession, type ToolTraceEvent } from "../lib/tools/mod.ts";
import { fakeIo, runCommand, SELF_COMMAND } from "./fakes/cli_io.ts";

const TOOL = "fs.list_dir-then-fs.read_text";

async function recordSessions(dir: string, count: number): Promise<string> {
  const lines: string[] = [];
  for (let index = 0; index < count; index++) {
    const root = join(dir, `root${index}`);
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(root, `note-${index}.txt`), `the note number ${index}`);
    const session = await ToolSession.open({
      root,
      sessionId: `loop-${index}`,
      trace: (event: ToolTraceEvent) => void lines.push(JSON.stringify(event)),
    });
    try {
      await session.call({ id: "c1", tool: "fs.list_dir", args: { path: "." } });
      await session.call({ id: "c2", tool: "fs.read_text", args: { path: `note-${index}.txt` } });
    } finally {
      await session.close();
    }
  }
  const file = join(dir, "trace.jsonl");
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  return file;
}

async function syn(cwd: string, args: string[]) {
  const io = fakeIo({ cwd });
  const code = await runCli(args, io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

Deno.test({
  name:
    "traces → ingest → run → validate → PROMOTED → a new session runs composite.<id> in the sandbox",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_loop_" }));
    try {
      const trace = await recordSessions(dir, 4);
      const ingested = await syn(dir, ["synthesize", "ingest", "--format", "trace", trace]);
      assert.equal(ingested.code, 0, ingested.stderr);
      const ran = await syn(dir, ["synthesize", "run", "fs.list_dir>fs.read_text", "--json"]);
      assert.equal(ran.code, 0, ran.stderr);
      const tool = JSON.parse(ran.stdout).tools[0].tool;
      assert.equal(tool.tool_id, TOOL);
      assert.deepEqual(tool.internal_wiring, [{
        from_step: 0,
        from_key: "name",
        to_step: 1,
        to_key: "path",
      }]);
      await Deno.writeTextFile(
        join(dir, "syn.jsonc"),
        '{"validation": {"min_replay_sessions": 3}, "synthesis": {"require_approval": false}}',
      );
      const replayed = await syn(dir, ["synthesize", "validate", TOOL]);
      assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
      assert.match(replayed.stdout, /passed → TESTING/, "replay alone never promotes");
      const validated = await syn(dir, ["synthesize", "validate", TOOL, "--allow-replay-only"]);
      assert.equal(validated.code, 0, validated.stdout + validated.stderr);
      assert.match(validated.stdout, /passed → PROMOTED/);

      const registry = await baselineRegistry();
      const report = await registerPromotedComposites(registry, join(dir, ".syn"));
      assert.deepEqual(report, { registered: [`composite.${TOOL}`], skipped: [] });
      const fresh = join(dir, "fresh");
      await Deno.mkdir(fresh);
      await Deno.writeTextFile(join(fresh, "only.txt"), "never seen before");
      const session = await ToolSession.open({ root: fresh, registry });
      try {
        const result = await session.call({ id: "k", tool: `composite.${TOOL}`, args: {} });
        assert.equal(result.ok, true, JSON.stringify(result.error));
        const output = result.output as { result: { text: string }; steps: { status: string }[] };
        assert.equal(output.result.text, "never seen before");
        assert.deepEqual(output.steps.map((step) => step.status), ["ok", "ok"]);
        const escape = await session.call({
          id: "e",
          tool: `composite.${TOOL}`,
          args: { path: "/etc" },
        });
        assert.equal(escape.ok, false, "its arguments are checked like any tool's");
        assert.equal(escape.error?.code, "invalid_args");
      } finally {
        await session.close();
      }

      const repl = await runCommand(
        SELF_COMMAND,
        ["chat", "--state-dir", join(dir, ".syn"), "--root", fresh],
        { stdin: "/tools\n/quit\n", cwd: dir },
      );
      assert.equal(repl.code, 0, repl.stderr);
      assert.match(
        repl.stderr,
        new RegExp(
          `composite\\.${TOOL.replaceAll(".", "\\.")}: Runs fs\\.list_dir → fs\\.read_text`,
        ),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "validate --execute runs the composite in the sandbox on the recorded inputs and reports both scores",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn_exec_" }));
    try {
      const root = join(dir, "project");
      await Deno.mkdir(root);
      await Deno.writeTextFile(join(root, "readme.txt"), "how to build the project");
      const lines: string[] = [];
      for (let index = 0; index < 3; index++) {
        const session = await ToolSession.open({
          root,
          sessionId: `work-${index}`,
          trace: (event: ToolTraceEvent) => void lines.push(JSON.stringify(event)),
        });
        await session.call({ id: "a", tool: "fs.list_dir", args: { path: "." } });
        await session.call({ id: "b", tool: "fs.read_text", args: { path: "readme.txt" } });
        await session.close();
      }
      await Deno.writeTextFile(join(dir, "trace.jsonl"), lines.join("\n") + "\n");
      await Deno.writeTextFile(
        join(dir, "syn.jsonc"),
        '{"validation": {"min_replay_sessions": 3}}',
      );
      assert.equal((await syn(dir, ["synthesize", "ingest", "trace.jsonl"])).code, 0);
      assert.equal((await syn(dir, ["synthesize", "run", "--top", "1"])).code, 0);
      const same = await syn(dir, [
        "synthesize",
        "validate",
        TOOL,
        "--execute",
        "--root",
        root,
        "--json",
      ]);
      assert.equal(same.code, 0, same.stdout + same.stderr);
      const { validation } = JSON.parse(same.stdout);
      assert.ok(validation.equivalence.mean_similarity > 0.999);
      assert.deepEqual(validation.execution.failures, []);
      assert.ok(validation.execution.mean_similarity > 0.999, JSON.stringify(validation.execution));

      assert.equal(validation.execution.mode, "fresh");
      assert.equal(validation.execution.steps.equal, validation.execution.steps.compared);
      assert.deepEqual(
        [...Deno.readDirSync(root)].map((entry) => entry.name),
        ["readme.txt"],
        "executed in copies: the user's folder is untouched",
      );

      // A file now listed first: the wire (the listing's first name) no longer gives the
      // path the original call read. Replay still agrees; execution does not.
      await Deno.writeTextFile(join(root, "a-first.txt"), "an entirely different text now");
      const changed = await syn(dir, ["synthesize", "validate", TOOL, "--execute", "--root", root]);
      assert.equal(changed.code, 1, changed.stdout);
      assert.match(changed.stdout, /equivalence +mean 1\.000/);
      assert.match(changed.stdout, /executed +mean 0\.\d+/);
      assert.match(changed.stdout, /step outputs equal to the original calls': 3 of 6/);
      assert.match(changed.stdout, /reason +executed: mean similarity/);
      const refused = await syn(dir, ["synthesize", "validate", TOOL, "--execute"]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /--fresh-upstream .*--root DIR/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
