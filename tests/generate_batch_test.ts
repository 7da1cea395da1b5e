import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import { generateDeterministic, normalizeAsset } from "../lib/generate/mod.ts";
import { run } from "../lib/cli/generate.ts";
import { childEnv } from "./fakes/child_env.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";
import {
  assertLogRecordsValid,
  referenceStore,
  startCountingValidator,
  tempDir,
} from "./generate_fakes.ts";

const ADJECTIVES = [
  "calm",
  "angry",
  "bright",
  "dark",
  "gentle",
  "wild",
  "dreamy",
  "electric",
  "slow",
  "glowing",
];
const COLORS = [
  "blue",
  "red",
  "green",
  "golden",
  "purple",
  "cyan",
  "pink",
  "silver",
  "orange",
  "white",
];
const THINGS = [
  "ocean at dusk",
  "fire",
  "circle",
  "spiral vortex",
  "ring of bells",
  "forest rain",
  "neon grid",
  "drum heartbeat",
  "aurora",
  "star",
];

/** 200 distinct prompts from a small grammar. */
function prompts(count: number): string[] {
  const out: string[] = [];
  for (let index = 0; out.length < count; index++) {
    out.push(
      `${ADJECTIVES[index % 10]} ${COLORS[Math.floor(index / 10) % 10]} ${
        THINGS[(index * 7 + Math.floor(index / 100)) % 10]
      } #${index}`,
    );
  }
  return out;
}

Deno.test({
  name:
    "syn generate --batch: 200 deterministic assets validate against the conformance set and reproduce from their seed",
  fn: async () => {
    using work = tempDir();
    const list = prompts(200);
    await Deno.writeTextFile(
      `${work.path}/prompts.txt`,
      "# two hundred prompts\n\n" + list.join("\n") + "\n",
    );
    const validator = await startCountingValidator();
    let result;
    try {
      result = await runSyn([
        "generate",
        "--batch",
        "prompts.txt",
        "--concurrency",
        "4",
        "--seed",
        "77",
      ], {
        cwd: work.path,
        env: { ...validator.env, MCP_READY_FILE: `${work.path}/mcp.ready` },
      });
      assert.equal(validator.connections, 1, "one validator connection for the whole batch");
      assert.equal(validator.calls, 200);
    } finally {
      await validator.close();
    }
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /200 prompts: 200 ok, 0 invalid, 0 failed/);
    assert.doesNotMatch(result.stderr, /\r\[/, "no progress line when stderr is not a terminal");
    const report = JSON.parse(result.stdout);
    assert.equal(report.summary.total, 200);
    assert.deepEqual(report.results.map((entry: { prompt: string }) => entry.prompt), list);
    const store = await referenceStore();
    const names = new Set<string>();
    for (const entry of report.results) {
      const asset = JSON.parse(await Deno.readTextFile(entry.asset_path));
      assert.deepEqual(
        store.validate(asset, "synesthetic-asset"),
        { ok: true, errors: [] },
        entry.prompt,
      );
      assert.equal(asset.meta_info.provenance.parameters.seed, 77);
      const provenance = asset.meta_info.provenance;
      delete asset.meta_info.provenance;
      const again = normalizeAsset(
        generateDeterministic(entry.prompt, { seed: provenance.parameters.seed }),
        {
          prompt: entry.prompt,
        },
      );
      assert.deepEqual(asset, JSON.parse(JSON.stringify(again)), entry.prompt);
      names.add(asset.shader.fragment_shader);
    }
    assert.ok(names.size > 150, `prompts give different shaders: ${names.size}`);
  },
});

Deno.test({
  name: "two processes generating into one log directory at once: every line parses, nothing lost",
  fn: async () => {
    using work = tempDir();
    // Enough prompts that the two runs overlap for most of their time.
    const list = prompts(200);
    await Deno.writeTextFile(`${work.path}/a.txt`, list.slice(0, 100).join("\n"));
    await Deno.writeTextFile(`${work.path}/b.txt`, list.slice(100).join("\n"));
    const env = {
      MCP_READY_FILE: `${work.path}/mcp.ready`,
      LABS_LOG_DIR: `${work.path}/shared-logs`,
    };
    const [a, b] = await Promise.all([
      runSyn(["generate", "--batch", "a.txt", "--concurrency", "4"], { cwd: work.path, env }),
      runSyn(["generate", "--engine=openai", "--batch", "b.txt", "--concurrency", "4"], {
        cwd: work.path,
        env,
      }),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const generator = await readJsonl(`${work.path}/shared-logs/generator.jsonl`) as {
      trace_id: string;
      prompt: string;
    }[];
    assert.equal(generator.length, 200);
    assert.equal(new Set(generator.map((record) => record.trace_id)).size, 200);
    assert.deepEqual(generator.map((record) => record.prompt).sort(), [...list].sort());
    const external = await readJsonl(`${work.path}/shared-logs/external.jsonl`);
    assert.equal(external.length, 100);
    const text = await Deno.readTextFile(`${work.path}/shared-logs/generator.jsonl`);
    assert.ok(text.endsWith("\n"));
    assert.equal(text.split("\n").length, 201);
    assert.equal(await assertLogRecordsValid(`${work.path}/shared-logs`), 300);
  },
});

Deno.test({
  name: "syn generate --batch shows a progress line on a terminal and keeps going after a failure",
  fn: async () => {
    using work = tempDir();
    await Deno.writeTextFile(
      `${work.path}/mixed.txt`,
      ["first prompt", "broken [mock:schema-invalid]", "third prompt"].join("\n"),
    );
    const validator = await startCountingValidator();
    try {
      const io = fakeIo({ cwd: work.path, terminal: true, env: validator.env });
      const code = await run(["--engine=gemini", "--batch", "mixed.txt", "--concurrency", "2"], io);
      assert.equal(code, 1);
      assert.match(io.err(), /\r\[3\/3\] ok 2 · invalid 1 · failed 0\n/);
      const report = JSON.parse(io.out());
      assert.deepEqual(report.results.map((entry: { status: string }) => entry.status), [
        "ok",
        "invalid",
        "ok",
      ]);
      assert.equal(report.validator.calls, 3);
      assert.equal(validator.connections, 1);
      const relaxed = fakeIo({ cwd: work.path, env: validator.env });
      assert.equal(await run(["--engine=gemini", "--batch", "mixed.txt", "--relaxed"], relaxed), 0);
      assert.doesNotMatch(relaxed.err(), /\r\[/);
    } finally {
      await validator.close();
    }
  },
});

Deno.test({
  name: "syn generate --batch caps a file that is not a regular one (a pipe) while reading it",
  fn: async () => {
    using work = tempDir();
    const fifo = `${work.path}/prompts.fifo`;
    const made = await new Deno.Command("mkfifo", {
      args: [fifo],
      clearEnv: true,
      env: childEnv(),
      stderr: "piped",
    }).output();
    assert.ok(made.success, `mkfifo: ${new TextDecoder().decode(made.stderr)}`);
    // 17 MiB of comment lines: a pipe has no size to check up front, so the read must stop.
    const feeding = (async () => {
      using pipe = await Deno.open(fifo, { write: true });
      const chunk = new TextEncoder().encode("# a comment line, not a prompt\n".repeat(32 * 1024));
      try {
        for (let written = 0; written < 17 * 1024 * 1024; written += chunk.length) {
          await pipe.write(chunk);
        }
      } catch {
        // the reader stopped early and closed its end
      }
    })();
    const io = fakeIo({ cwd: work.path });
    await assert.rejects(
      run(["--batch", "prompts.fifo"], io),
      /cannot read --batch file: prompts\.fifo \(input is larger than 16 MiB/,
    );
    await feeding;
  },
});
