import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import { generateDeterministic, normalizeAsset } from "../lib/generate/mod.ts";
import { runSyn } from "./fakes/cli_io.ts";
import {
  assertLogRecordsValid,
  closedPort,
  referenceStore,
  startCountingValidator,
  tempDir,
} from "./generate_fakes.ts";

function envFor(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { MCP_READY_FILE: `${dir}/mcp.ready`, ...extra };
}

Deno.test({
  name: "syn generate with no keys and no configuration writes a valid asset",
  fn: async () => {
    using work = tempDir();
    const result = await runSyn(["generate", "a pulsing blue circle"], {
      cwd: work.path,
      env: envFor(work.path),
    });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.ok, true);
    assert.equal(summary.engine, "deterministic");
    assert.equal(summary.validator.transport, "stdio");
    assert.ok(summary.validator.calls >= 1);
    assert.ok(
      summary.asset_path.startsWith(`${work.path}/meta/output/assets/pulsing-blue-circle-`),
    );
    assert.match(result.stderr, /wrote .*pulsing-blue-circle-.*\.json/);
    const asset = JSON.parse(await Deno.readTextFile(summary.asset_path));
    const store = await referenceStore();
    assert.deepEqual(store.validate(asset, "synesthetic-asset"), { ok: true, errors: [] });
    assert.equal(asset.meta_info.provenance.trace_id, summary.trace_id);
    // Defaults when nothing is given: deterministic engine, seed 0, no temperature, strict.
    assert.equal(asset.meta_info.provenance.engine, "deterministic");
    assert.deepEqual(asset.meta_info.provenance.parameters, { temperature: null, seed: 0 });
    assert.equal(summary.strict, true);
    assert.equal(await assertLogRecordsValid(`${work.path}/meta/output/labs`), 1);
    const [record] = await readJsonl(`${work.path}/meta/output/labs/generator.jsonl`) as Record<
      string,
      unknown
    >[];
    assert.equal(record.trace_id, summary.trace_id);
    assert.equal(record.ok, true);
  },
});

Deno.test({
  name: "syn generate reproduces an asset from its prompt and seed",
  fn: async () => {
    using work = tempDir();
    const run = async () => {
      const result = await runSyn(["generate", "a calm blue ocean at dusk", "--seed", "1234"], {
        cwd: work.path,
        env: envFor(work.path),
      });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(await Deno.readTextFile(JSON.parse(result.stdout).asset_path));
    };
    const first = await run();
    const second = await run();
    assert.notEqual(first.meta_info.provenance.trace_id, second.meta_info.provenance.trace_id);
    for (const asset of [first, second]) {
      delete asset.meta_info.provenance.trace_id;
      delete asset.meta_info.provenance.timestamp;
    }
    assert.deepEqual(first, second);
    const expected = normalizeAsset(
      generateDeterministic("a calm blue ocean at dusk", { seed: 1234 }),
      { prompt: "a calm blue ocean at dusk" },
    );
    delete first.meta_info.provenance;
    assert.deepEqual(first, JSON.parse(JSON.stringify(expected)));
  },
});

Deno.test({
  name: "syn generate strictness: flag > LABS_FAIL_FAST > default strict; invalid never written",
  fn: async () => {
    using work = tempDir();
    const cases: [string[], Record<string, string>, number, string][] = [
      [[], {}, 1, "error"],
      [[], { LABS_FAIL_FAST: "0" }, 0, "warning"],
      [["--strict"], { LABS_FAIL_FAST: "0" }, 1, "error"],
      [["--relaxed"], { LABS_FAIL_FAST: "1" }, 0, "warning"],
      [["--relaxed"], {}, 0, "warning"],
    ];
    for (const [flags, env, code, severity] of cases) {
      const logDir = `${work.path}/logs-${flags.join("")}-${env.LABS_FAIL_FAST ?? ""}`;
      const result = await runSyn([
        "generate",
        "--engine=gemini",
        "a broken thing [mock:schema-invalid]",
        "--log-dir",
        logDir,
        ...flags,
      ], { cwd: work.path, env: envFor(work.path, env) });
      const label = `${flags.join(" ")} ${JSON.stringify(env)}`;
      assert.equal(result.code, code, `${label}: ${result.stderr}`);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.status, "invalid", label);
      assert.equal(summary.severity, severity, label);
      assert.equal(summary.asset_path, null);
      assert.equal(summary.failure.reason, "validation_failed");
      assert.match(summary.failure.detail, /rule_bundle\/created_at/);
      assert.ok(summary.validator.calls >= 1);
      assert.match(
        result.stderr,
        new RegExp(`${severity}: validation_failed: .*\\(asset not written\\)`),
      );
      const [entry] = await readJsonl(`${logDir}/external.jsonl`) as Record<string, unknown>[];
      assert.equal(entry.severity, severity);
      assert.equal(entry.strict, code === 1);
      assert.equal(await assertLogRecordsValid(logDir), 2);
    }
    await assert.rejects(() => Deno.stat(`${work.path}/meta/output/assets`));
  },
});

Deno.test({
  name: "syn generate calls the validator in every mode, over the transport the env selects",
  fn: async () => {
    using work = tempDir();
    const validator = await startCountingValidator();
    try {
      let before = 0;
      for (const engine of ["deterministic", "gemini", "openai", "anthropic"]) {
        for (const flag of ["--strict", "--relaxed"]) {
          const result = await runSyn(["generate", `--engine=${engine}`, "angry red fire", flag], {
            cwd: work.path,
            env: envFor(work.path, validator.env),
          });
          assert.equal(result.code, 0, `${engine} ${flag}: ${result.stderr}`);
          const summary = JSON.parse(result.stdout);
          assert.equal(summary.validator.transport, "tcp");
          assert.equal(summary.validator.calls, 1);
          assert.ok(validator.calls >= before + 1, `${engine} ${flag}: the server saw the call`);
          before = validator.calls;
        }
      }
      assert.equal(validator.calls, 8);
    } finally {
      await validator.close();
    }
  },
});

Deno.test("syn generate reports bad usage and bad configuration with exit 2", async () => {
  using work = tempDir();
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["generate"], {}, /a prompt is required/],
    [["generate", "x", "--engine=gpt9"], {}, /--engine: the engine is one of/],
    [["generate", "x", "--strict", "--relaxed"], {}, /--strict, --relaxed: .*exclude each other/],
    [["generate", "x", "--seed=1.5"], {}, /--seed takes an integer/],
    [["generate", "x", "--concurrency", "2"], {}, /--concurrency applies to --batch only/],
    [["generate", "--batch", "missing.txt"], {}, /cannot read --batch file: missing\.txt/],
    [
      ["generate", "--batch", "huge.txt"],
      {},
      /--batch file huge\.txt, line 2: the prompt is 2621441 bytes; the limit is 262144 \(256 KiB\)/,
    ],
    [
      ["generate", "x", "--engine", "openai-compatible"],
      {},
      /--engine: .*openai-compatible \(an OpenAI-compatible server is the openai engine, with OPENAI_ENDPOINT or the endpoint option\)/,
    ],
    [["generate", "x", "--sed", "3"], {}, /unknown option '--sed' \(did you mean '--seed'\?\)/],
    [["generate", "x", "--seed"], {}, /^syn generate: --seed needs a value; see/],
    [["generate", "--engine=openai", "x"], { OPENAI_TEMPERATURE: "hot" }, /OPENAI_TEMPERATURE/],
    [["generate", "x", "--log-dir", "a-file"], {}, /Cannot create the log folder: .*a-file/],
    [["generate", "x"], { LABS_FAIL_FAST: "perhaps" }, /LABS_FAIL_FAST must be 1/],
    [["generate", "x"], { MCP_ENDPOINT: "tcp" }, /MCP_ENDPOINT=tcp needs MCP_PORT/],
    [
      ["generate", "--engine=openai", "x"],
      { LABS_EXTERNAL_LIVE: "1", OPENAI_API_KEY: "" },
      /OPENAI_API_KEY/,
    ],
  ];
  await Deno.writeTextFile(`${work.path}/a-file`, "");
  await Deno.writeTextFile(`${work.path}/huge.txt`, `# a comment\n${"é".repeat(1_310_720)}a\n`);
  for (const [args, env, pattern] of cases) {
    const result = await runSyn(args, { cwd: work.path, env: envFor(work.path, env) });
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, pattern);
    assert.equal(result.stdout, "");
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack");
  }
  await assert.rejects(() => Deno.stat(`${work.path}/meta/output/assets`));
});

Deno.test({
  name:
    "syn generate fails with a structured transport_error, exit 1 in either mode, when the validator cannot start",
  fn: async () => {
    using work = tempDir();
    const unreachable: Record<string, string>[] = [
      { MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(closedPort()) },
      { MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: `${work.path}/no-such-adapter --stdio` },
      { MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: `${work.path}/no-such.sock` },
    ];
    for (const validatorEnv of unreachable) {
      for (const engine of ["deterministic", "gemini"]) {
        for (const flag of ["--strict", "--relaxed"]) {
          const logDir = `${work.path}/logs`;
          const label = `${JSON.stringify(validatorEnv)} ${engine} ${flag}`;
          const result = await runSyn(
            ["generate", `--engine=${engine}`, "a pulsing blue circle", flag, "--log-dir", logDir],
            { cwd: work.path, env: envFor(work.path, validatorEnv) },
          );
          assert.equal(result.code, 1, `${label}: ${result.stderr}`);
          assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack");
          assert.match(result.stderr, /error: transport_error: .*\(asset not written\)/);
          const summary = JSON.parse(result.stdout);
          assert.equal(summary.status, "failed", label);
          assert.equal(summary.severity, "error", label);
          assert.equal(summary.failure.reason, "transport_error", label);
          assert.equal(summary.validator.calls, 1, label);
          assert.equal(summary.validator.transport, validatorEnv.MCP_ENDPOINT, label);
          if (engine === "gemini") {
            const entry = (await readJsonl(`${logDir}/external.jsonl`)).at(-1) as Record<
              string,
              unknown
            >;
            assert.deepEqual(entry.failure, summary.failure, label);
            assert.equal(entry.transport, validatorEnv.MCP_ENDPOINT, label);
            assert.ok(entry.normalized_asset, "the asset that was not checked is logged");
          }
        }
      }
    }
    assert.equal(await assertLogRecordsValid(`${work.path}/logs`), 12 + 6);
    await assert.rejects(() => Deno.stat(`${work.path}/meta/output/assets`));
  },
});

Deno.test({
  name: "syn generate reports an asset folder it cannot write as a logged io_error, exit 1",
  fn: async () => {
    using work = tempDir();
    await Deno.writeTextFile(`${work.path}/taken`, "");
    const result = await runSyn(["generate", "a pulsing blue circle", "--out", "taken/assets"], {
      cwd: work.path,
      env: envFor(work.path),
    });
    assert.equal(result.code, 1, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.status, "failed");
    assert.equal(summary.failure.reason, "io_error");
    assert.match(summary.failure.detail, /cannot write .*taken\/assets\/pulsing-blue-circle-/);
    const [record] = await readJsonl(`${work.path}/meta/output/labs/generator.jsonl`) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(record.failure, summary.failure);
  },
});
