import { childEnv } from "./fakes/child_env.ts";
/**
 * Regression tests for the spine hardening issue: each test names the item it covers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { generateDeterministic } from "../lib/generate/mod.ts";
import { fakeIo, SELF_COMMAND } from "./fakes/cli_io.ts";

async function syn(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const io = fakeIo({ cwd: options.cwd, env: options.env });
  const code = await runCli(args, io, COMMANDS);
  return { code, out: io.out(), err: io.err() };
}

Deno.test({
  name: "item 13: --seed -1 works and gives the asset of seed -1",
  async fn() {
    const dir = await Deno.makeTempDir();
    const result = await syn([
      "generate",
      "a red star",
      "--seed",
      "-1",
      "--out",
      "assets",
      "--log-dir",
      "logs",
    ], { cwd: dir });
    assert.equal(result.code, 0, result.err);
    const summary = JSON.parse(result.out);
    const asset = JSON.parse(await Deno.readTextFile(summary.asset_path));
    assert.equal(asset.meta_info.provenance.parameters.seed, -1);
    const expected = generateDeterministic("a red star", { seed: -1 }) as { shader: unknown };
    assert.deepEqual(asset.shader, expected.shader);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("item 13: extra positional words are an error, not joined into the prompt", async () => {
  const result = await syn(["generate", "a", "red", "star"]);
  assert.equal(result.code, 2);
  assert.match(result.err, /give the prompt as one argument, in quotes: syn generate "a red star"/);
});

Deno.test({
  name: "item 13: critique never says 0 error(s) for a schema-invalid document",
  async fn() {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(join(dir, "bad.json"), '{"name": 5}');
    const result = await syn(["critique", "bad.json", "--log-dir", "logs"], { cwd: dir });
    assert.equal(result.code, 1, result.err);
    assert.match(result.err, /schema invalid/);
    assert.doesNotMatch(result.err, /\b0 error\(s\)/);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("item 9: syn diff refuses documents too deep to diff with exit 2, never 1", async () => {
  const dir = await Deno.makeTempDir();
  const deep = (leaf: string) => "[".repeat(20_000) + leaf + "]".repeat(20_000);
  await Deno.writeTextFile(join(dir, "a.json"), deep('{"a":1}'));
  await Deno.writeTextFile(join(dir, "b.json"), deep('{"a":2}'));
  const result = await syn(["diff", "a.json", "b.json"], { cwd: dir });
  assert.equal(result.code, 2, result.err);
  assert.match(result.err, /nests deeper than 5000 levels/);
  assert.equal(result.out, "");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("item 9: syn diff still diffs documents just under the depth limit", async () => {
  const dir = await Deno.makeTempDir();
  const deep = (leaf: string) => "[".repeat(4_990) + leaf + "]".repeat(4_990);
  await Deno.writeTextFile(join(dir, "a.json"), deep("1"));
  await Deno.writeTextFile(join(dir, "b.json"), deep("2"));
  const result = await syn(["diff", "--compact", "a.json", "b.json"], { cwd: dir });
  assert.equal(result.code, 1, result.err);
  assert.equal(JSON.parse(result.out)[0].op, "replace");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("item 9: syn diff refuses a document with too many values with exit 2", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, "a.json"), `[${"0,".repeat(4_000_001)}0]`);
  await Deno.writeTextFile(join(dir, "b.json"), "[]");
  const result = await syn(["diff", "a.json", "b.json"], { cwd: dir });
  assert.equal(result.code, 2, result.err);
  assert.match(result.err, /more than 4000000 values/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name: "item 17: provenance mode is one of the spec's values (mock|live) for every engine",
  async fn() {
    const dir = await Deno.makeTempDir();
    for (const engine of ["deterministic", "gemini", "openai", "anthropic"]) {
      const result = await syn([
        "generate",
        "a blue pulse",
        `--engine=${engine}`,
        "--out",
        "assets",
        "--log-dir",
        "logs",
      ], { cwd: dir });
      assert.equal(result.code, 0, `${engine}: ${result.err}`);
      const asset = JSON.parse(await Deno.readTextFile(JSON.parse(result.out).asset_path));
      assert.ok(
        ["mock", "live"].includes(asset.meta_info.provenance.mode),
        `${engine}: ${asset.meta_info.provenance.mode}`,
      );
    }
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "item 6: mcp-serve survives a closed stderr: answers, exits 0, removes its ready file",
  async fn() {
    const dir = await Deno.makeTempDir();
    const ready = join(dir, "mcp.ready");
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [...SELF_COMMAND.slice(1), "mcp-serve", "--stdio"],
      clearEnv: true,
      env: childEnv({ MCP_READY_FILE: ready }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await child.stderr.cancel(); // the reader goes away: every later write is EPIPE
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"list_schemas"}\n'),
    );
    const reader = child.stdout.getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    await writer.close();
    reader.releaseLock();
    await child.stdout.cancel();
    const status = await child.status;
    clearTimeout(timer);
    assert.match(out, /"id":1,"result"/);
    assert.equal(status.code, 0);
    await assert.rejects(Deno.stat(ready), Deno.errors.NotFound, "the ready file was left behind");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("item 8: untrusted text reaching stderr has its escapes shown as text", async () => {
  const dir = await Deno.makeTempDir();
  const result = await runSynChild(["validate", "\u001b[31mevil\u001b]0;title\u0007.json"], dir);
  assert.equal(result.code, 2);
  assert.ok(!result.stderr.includes("\u001b"), JSON.stringify(result.stderr));
  assert.match(result.stderr, /\\x1b\[31mevil\\x1b\]0;title\\x07\.json/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("item 15: .env in the working folder is read at start; the real environment wins", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(join(dir, ".env"), "# test\nLABS_FAIL_FAST=perhaps\n");
  const fromFile = await runSynChild(["generate", "x"], dir);
  assert.equal(fromFile.code, 2);
  assert.match(fromFile.stderr, /LABS_FAIL_FAST must be 1 \(strict\) or 0 \(relaxed\): perhaps/);
  const realWins = await runSynChild(["generate", "x", "--out", "o", "--log-dir", "l"], dir, {
    LABS_FAIL_FAST: "1",
  });
  assert.equal(realWins.code, 0, realWins.stderr);
  await Deno.remove(dir, { recursive: true });
});

async function runSynChild(args: string[], cwd: string, extra: Record<string, string> = {}) {
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), ...args],
    clearEnv: true,
    env: childEnv(extra),
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const output = await child.output();
  clearTimeout(timer);
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("item 3: the ready file never replaces a device, a link, a foreign file or a live server's file", async () => {
  const { claimReadyFile } = await import("../lib/mcp/mod.ts");
  const dir = await Deno.makeTempDir();
  const warnings: string[] = [];
  const warn = (line: string) => void warnings.push(line);
  const content = `${Deno.pid} 2026-01-01T00:00:00.000Z\n`;

  assert.equal(claimReadyFile("/dev/null", content, { isDefault: false, warn }), undefined);
  assert.ok(Deno.statSync("/dev/null").isCharDevice, "/dev/null was replaced");

  const foreign = join(dir, "notes.txt");
  await Deno.writeTextFile(foreign, "important\n");
  assert.equal(claimReadyFile(foreign, content, { isDefault: false, warn }), undefined);
  assert.equal(await Deno.readTextFile(foreign), "important\n");

  const link = join(dir, "link.ready");
  await Deno.symlink(foreign, link);
  assert.equal(claimReadyFile(link, content, { isDefault: false, warn }), undefined);
  assert.equal(await Deno.readTextFile(foreign), "important\n");

  const live = join(dir, "live.ready");
  await Deno.writeTextFile(live, `${Deno.pid} 2026-01-01T00:00:00.000Z\n`);
  assert.equal(claimReadyFile(live, "1 x\n", { isDefault: false, warn }), undefined);
  assert.equal(await Deno.readTextFile(live), `${Deno.pid} 2026-01-01T00:00:00.000Z\n`);

  const stale = join(dir, "stale.ready");
  await Deno.writeTextFile(stale, "999999999 2020-01-01T00:00:00.000Z\n");
  assert.equal(claimReadyFile(stale, content, { isDefault: false, warn }), stale);
  assert.equal(await Deno.readTextFile(stale), content);
  assert.equal(warnings.length, 4);
  assert.ok(warnings.every((line) => /left untouched/.test(line)));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("item 3: with the default path held by a live server, a second server gets its own", async () => {
  const { claimReadyFile } = await import("../lib/mcp/mod.ts");
  const dir = await Deno.makeTempDir();
  const held = join(dir, "mcp.ready");
  await Deno.writeTextFile(held, `${Deno.pid} 2026-01-01T00:00:00.000Z\n`);
  const warnings: string[] = [];
  const path = claimReadyFile(held, `${Deno.pid} now\n`, {
    isDefault: true,
    warn: (line) => void warnings.push(line),
  });
  assert.equal(path, `/tmp/mcp-${Deno.pid}.ready`);
  assert.match(warnings[0], /belongs to another running server; using \/tmp\/mcp-\d+\.ready/);
  await Deno.remove(path!);
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name:
    "item 1: 429, 429, then an answer without controls and haptic ends in success, the fill recorded",
  async fn() {
    const { startMockLlmServer } = await import("./fakes/mock_llm_server.ts");
    const { canonicalBaseline } = await import("../lib/generate/mod.ts");
    const partial = structuredClone(canonicalBaseline()) as unknown as Record<string, unknown>;
    delete partial.control;
    delete partial.haptic;
    delete partial.meta_info;
    await using llm = await startMockLlmServer({ answer: () => partial });
    llm.script("429", "429");
    const dir = await Deno.makeTempDir();
    const env = {
      LABS_EXTERNAL_LIVE: "1",
      OPENAI_API_KEY: "sk-test-key-0000000000000000",
      OPENAI_ENDPOINT: llm.openaiUrl,
    };
    const result = await syn([
      "generate",
      "a violet hum",
      "--engine=openai",
      "--out",
      "assets",
      "--log-dir",
      "logs",
    ], { cwd: dir, env });
    assert.equal(result.code, 0, result.err + result.out);
    assert.equal(llm.requests.length, 3);
    const asset = JSON.parse(await Deno.readTextFile(JSON.parse(result.out).asset_path));
    assert.deepEqual(asset.meta_info.provenance.filled_sections, [
      "haptic",
      "control",
      "meta_info",
    ]);
    const record = JSON.parse(
      (await Deno.readTextFile(join(dir, "logs", "generator.jsonl"))).trim(),
    );
    assert.deepEqual(record.filled_sections, ["haptic", "control", "meta_info"]);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "item 14: --timeout-s bounds the whole wait, retries and their pauses included",
  async fn() {
    const { startMockLlmServer } = await import("./fakes/mock_llm_server.ts");
    await using llm = await startMockLlmServer();
    // Every answer is a 503: without a total bound, four attempts and their pauses follow.
    llm.script("503", "503", "503", "503");
    const dir = await Deno.makeTempDir();
    const env = {
      LABS_EXTERNAL_LIVE: "1",
      OPENAI_API_KEY: "sk-test-key-0000000000000000",
      OPENAI_ENDPOINT: llm.openaiUrl,
    };
    const result = await syn([
      "generate",
      "x",
      "--engine=openai",
      "--timeout-s",
      "0.3",
      "--out",
      "a",
      "--log-dir",
      "l",
    ], { cwd: dir, env });
    assert.equal(result.code, 1, result.err);
    assert.equal(JSON.parse(result.out).failure.reason, "timeout");
    assert.ok(
      llm.requests.length < 4,
      `attempts went on past the deadline: ${llm.requests.length}`,
    );
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "item 16: a huge prompt is stored once in the asset and capped in logs; mock descriptions match the content",
  async fn() {
    const dir = await Deno.makeTempDir();
    const prompt = "zebra ".repeat(3000).trim();
    const result = await syn(["generate", prompt, "--out", "assets", "--log-dir", "logs"], {
      cwd: dir,
    });
    assert.equal(result.code, 0, result.err);
    const summary = JSON.parse(result.out);
    const assetText = await Deno.readTextFile(summary.asset_path);
    assert.equal(assetText.split(prompt).length - 1, 1, "the full prompt is stored more than once");
    assert.ok(summary.prompt.length < 2100 && summary.prompt.endsWith("(17999 characters)"));
    const log = await Deno.readTextFile(join(dir, "logs", "generator.jsonl"));
    assert.ok(!log.includes(prompt), "the full prompt reached the log");

    for (const engine of ["gemini", "openai", "anthropic"]) {
      const star = await syn([
        "generate",
        "a red star",
        `--engine=${engine}`,
        "--out",
        "assets",
        "--log-dir",
        "logs",
      ], { cwd: dir });
      assert.equal(star.code, 0, star.err);
      const asset = JSON.parse(await Deno.readTextFile(JSON.parse(star.out).asset_path));
      assert.doesNotMatch(
        JSON.stringify(asset),
        /circle/i,
        `${engine}: a star described as a circle`,
      );
      assert.match(asset.shader.description, /Star/);
    }
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "item 10: kill -9 during a batch leaves no asset without its record, and the next run sweeps temporaries",
  async fn() {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      join(dir, "prompts.txt"),
      Array.from({ length: 400 }, (_, i) => `prompt number ${i}`).join("\n"),
    );
    await Deno.mkdir(join(dir, "assets"));
    // A temporary of a writer long gone (no such pid), and one of a live process (ours).
    await Deno.writeTextFile(join(dir, "assets", "x.json.999999999.0123abcd.tmp"), "{");
    await Deno.writeTextFile(join(dir, "assets", `y.json.${Deno.pid}.0123abcd.tmp`), "{");
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [
        ...SELF_COMMAND.slice(1),
        "generate",
        "--batch",
        "prompts.txt",
        "--concurrency",
        "4",
        "--out",
        "assets",
        "--log-dir",
        "logs",
      ],
      clearEnv: true,
      env: childEnv(),
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const written = [...Deno.readDirSync(join(dir, "assets"))].filter((entry) =>
        entry.name.endsWith(".json")
      ).length;
      if (written >= 20) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill("SIGKILL");
    await child.status;
    const recorded = new Set(
      (await Deno.readTextFile(join(dir, "logs", "generator.jsonl"))).trim().split("\n")
        .map((line) => JSON.parse(line).asset_path as string | null),
    );
    const assets = [...Deno.readDirSync(join(dir, "assets"))].filter((entry) =>
      entry.name.endsWith(".json")
    );
    assert.ok(assets.length >= 20);
    for (const asset of assets) {
      assert.ok(
        recorded.has(join(dir, "assets", asset.name)) || recorded.has(`assets/${asset.name}`),
        `no record for ${asset.name}`,
      );
    }
    const again = await runSynChild([
      "generate",
      "one more",
      "--out",
      "assets",
      "--log-dir",
      "logs",
    ], dir);
    assert.equal(again.code, 0, again.stderr);
    const left = [...Deno.readDirSync(join(dir, "assets"))].map((entry) => entry.name).filter((
      name,
    ) => name.endsWith(".tmp"));
    assert.deepEqual(
      left,
      [`y.json.${Deno.pid}.0123abcd.tmp`],
      "a dead writer's temporary survived, or a live one's was removed",
    );
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "item 12: patch apply --out <folder> is a clear error, and the attempt is still in patches.jsonl",
  async fn() {
    const dir = await Deno.makeTempDir();
    await Deno.copyFile(
      new URL("../schemas/examples/canonical-baseline.json", import.meta.url),
      join(dir, "a.json"),
    );
    await Deno.writeTextFile(
      join(dir, "p.json"),
      '[{"op":"replace","path":"/name","value":"renamed"}]',
    );
    await Deno.mkdir(join(dir, "out"));
    const result = await syn([
      "patch",
      "apply",
      "a.json",
      "p.json",
      "--out",
      "out",
      "--log-dir",
      "logs",
    ], { cwd: dir });
    assert.equal(result.code, 1, result.err);
    assert.match(result.err, /out is a folder: give the file to write/);
    const record = JSON.parse((await Deno.readTextFile(join(dir, "logs", "patches.jsonl"))).trim());
    assert.equal(record.action, "apply");
    assert.equal(record.ok, false);
    assert.equal(record.failure.reason, "io_error");
    assert.deepEqual([...Deno.readDirSync(join(dir, "out"))], []);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "item 12: critique flags a uniform default outside its declared range, and apply agrees",
  async fn() {
    const dir = await Deno.makeTempDir();
    const asset = JSON.parse(
      await Deno.readTextFile(
        new URL("../schemas/examples/canonical-baseline.json", import.meta.url),
      ),
    );
    const index = asset.shader.uniforms.findIndex((uniform: { name: string }) =>
      uniform.name === "u_px"
    );
    await Deno.writeTextFile(join(dir, "a.json"), JSON.stringify(asset));
    await Deno.writeTextFile(
      join(dir, "p.json"),
      JSON.stringify([{ op: "replace", path: `/shader/uniforms/${index}/default`, value: 5 }]),
    );
    const applied = await syn([
      "patch",
      "apply",
      "a.json",
      "p.json",
      "--out",
      "b.json",
      "--log-dir",
      "logs",
    ], { cwd: dir });
    assert.equal(applied.code, 1, applied.err);
    assert.match(
      applied.err,
      /critique_rejected: .*default 5 is outside the declared range \[-1, 1\] of u_px/,
    );
    await assert.rejects(Deno.stat(join(dir, "b.json")), Deno.errors.NotFound);
    asset.shader.uniforms[index].default = 5;
    await Deno.writeTextFile(join(dir, "c.json"), JSON.stringify(asset));
    const critique = await syn(["critique", "c.json", "--log-dir", "logs"], { cwd: dir });
    assert.equal(critique.code, 1, critique.err);
    assert.match(critique.out, /uniform_out_of_range/);
    await Deno.remove(dir, { recursive: true });
  },
});
