import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import {
  type JsonObject,
  mockProviderAnswer,
  normalizeAsset,
  type RequestEnvelope,
} from "../lib/generate/mod.ts";
import { type MockAnswerContext, startMockLlmServer } from "./fakes/mock_llm_server.ts";
import { runSyn } from "./fakes/cli_io.ts";
import {
  assertLogRecordsValid,
  closedPort,
  filesUnder,
  startCountingValidator,
  tempDir,
} from "./generate_fakes.ts";

const KEYS = {
  openai: { OPENAI_API_KEY: "sk-test-openaiFAKEKEY1234567890" },
  gemini: { GEMINI_API_KEY: "gemini-test-FAKEKEY-0987654321" },
  anthropic: { ANTHROPIC_API_KEY: "sk-ant-test-FAKEKEY-1122334455" },
};

/** The local server answers like a provider would: the canned answer for the envelope it got. */
function answer(context: MockAnswerContext): unknown {
  const envelope = JSON.parse(context.prompt) as RequestEnvelope;
  const canned = mockProviderAnswer(context.provider, envelope);
  if (envelope.prompt.endsWith(" echo")) {
    // A provider that leaks what it was sent: the key comes back inside the asset.
    const sent = String(context.request.headers.authorization ?? "").replace(/^Bearer /, "");
    (canned.meta as JsonObject).description = `made with key ${sent}`;
    (canned.shader as JsonObject).name = `Shader ${sent}`;
  }
  return canned;
}

async function withWorld(
  fn: (world: {
    dir: string;
    server: Awaited<ReturnType<typeof startMockLlmServer>>;
    validator: Awaited<ReturnType<typeof startCountingValidator>>;
    live: (
      provider: "openai" | "gemini" | "anthropic",
      extra?: Record<string, string>,
    ) => Record<string, string>;
  }) => Promise<void>,
  serverOptions: Parameters<typeof startMockLlmServer>[0] = {},
) {
  using work = tempDir();
  const server = await startMockLlmServer({ answer, ...serverOptions });
  const validator = await startCountingValidator();
  const urls = {
    openai: server.openaiUrl,
    gemini: server.geminiUrl,
    anthropic: server.anthropicUrl,
  };
  try {
    await fn({
      dir: work.path,
      server,
      validator,
      live: (provider, extra = {}) => ({
        MCP_READY_FILE: `${work.path}/mcp.ready`,
        ...validator.env,
        LABS_EXTERNAL_LIVE: "1",
        ...KEYS[provider],
        [`${provider.toUpperCase()}_ENDPOINT`]: urls[provider],
        ...extra,
      }),
    });
  } finally {
    await validator.close();
    await server.close();
  }
}

async function externalEntries(dir: string): Promise<JsonObject[]> {
  return await readJsonl(`${dir}/meta/output/labs/external.jsonl`) as JsonObject[];
}

Deno.test({
  name:
    "syn generate --engine=gemini|openai in mock mode normalizes, validates and persists without HTTP",
  fn: () =>
    withWorld(async ({ dir, server, validator }) => {
      for (const engine of ["gemini", "openai"]) {
        const result = await runSyn([
          "generate",
          `--engine=${engine}`,
          "a calm blue ocean at dusk",
          "--seed",
          "5",
        ], {
          cwd: dir,
          env: { MCP_READY_FILE: `${dir}/mcp.ready`, ...validator.env },
        });
        assert.equal(result.code, 0, result.stderr);
        const summary = JSON.parse(result.stdout);
        assert.equal(summary.mode, "mock");
        const asset = JSON.parse(await Deno.readTextFile(summary.asset_path));
        assert.equal(asset.meta_info.provenance.engine, engine);
        assert.equal(asset.meta_info.provenance.mode, "mock");
        assert.equal(asset.meta_info.provenance.api_endpoint, null);
        assert.ok(asset.control.control_parameters.length >= 2);
        assert.equal(asset.meta_info.category, "multimodal");
      }
      assert.equal(server.requests.length, 0);
      assert.equal(validator.calls, 2);
      const entries = await externalEntries(dir);
      assert.deepEqual(entries.map((entry) => [entry.engine, entry.mode, entry.failure]), [
        ["gemini", "mock", null],
        ["openai", "mock", null],
      ]);
    }),
});

Deno.test({
  name:
    "syn generate in live mode calls the local provider server, normalizes, validates and persists",
  fn: () =>
    withWorld(async ({ dir, server, validator, live }) => {
      for (const provider of ["openai", "gemini", "anthropic"] as const) {
        const before = server.requests.length;
        const result = await runSyn(
          [
            "generate",
            `--engine=${provider}`,
            "angry red fire",
            "--seed",
            "9",
            "--temperature",
            "0.4",
          ],
          { cwd: dir, env: live(provider) },
        );
        assert.equal(result.code, 0, `${provider}: ${result.stderr}`);
        const summary = JSON.parse(result.stdout);
        assert.equal(summary.mode, "live");
        assert.equal(server.requests.length, before + 1);
        const request = server.requests.at(-1)!;
        assert.equal(request.provider, provider);
        const asset = JSON.parse(await Deno.readTextFile(summary.asset_path));
        const provenance = asset.meta_info.provenance;
        assert.equal(provenance.mode, "live");
        assert.equal(provenance.engine, provider);
        assert.deepEqual(provenance.parameters, { temperature: 0.4, seed: 9 });
        assert.ok(String(provenance.api_endpoint).startsWith(server.url));
        assert.match(provenance.response_hash, /^[0-9a-f]{16}$/);
        // The envelope travels as the user turn, with the spec's hints.
        const body = JSON.stringify(request.body);
        assert.match(body, /need_sections/);
        assert.match(body, new RegExp(summary.trace_id));
      }
      assert.equal(validator.calls, 3);
      const entries = await externalEntries(dir);
      assert.deepEqual(
        entries.map((entry) => [entry.engine, entry.mode, entry.transport, entry.failure]),
        [
          ["openai", "live", "tcp", null],
          ["gemini", "live", "tcp", null],
          ["anthropic", "live", "tcp", null],
        ],
      );
      for (const entry of entries) {
        assert.deepEqual(entry.request, {
          model: (entry.provenance as JsonObject).model,
          temperature: 0.4,
          seed: 9,
          max_tokens: entry.engine === "anthropic" ? 4096 : null,
        });
        assert.equal(
          (entry.raw_response as JsonObject).hash,
          (entry.provenance as JsonObject).response_hash,
        );
      }
    }),
});

Deno.test({
  name: "syn generate --endpoint and --model win over *_ENDPOINT and *_MODEL",
  fn: () =>
    withWorld(async ({ dir, server, live }) => {
      // The environment points at a port nothing listens on; the flag must win.
      const env = live("openai", {
        OPENAI_ENDPOINT: "http://127.0.0.1:9/v1",
        OPENAI_MODEL: "model-from-env",
      });
      const result = await runSyn([
        "generate",
        "--engine=openai",
        "--endpoint",
        server.openaiUrl,
        "--model",
        "model-from-flag",
        "neon rain",
      ], { cwd: dir, env });
      assert.equal(result.code, 0, result.stderr);
      const request = server.requests.at(-1)!;
      assert.equal((request.body as JsonObject).model, "model-from-flag");
      const asset = JSON.parse(await Deno.readTextFile(JSON.parse(result.stdout).asset_path));
      assert.equal(asset.meta_info.provenance.model, "model-from-flag");
      assert.equal(asset.meta_info.provenance.api_endpoint, server.openaiUrl);

      // Without the flags, the environment wins over the defaults.
      const fromEnv = await runSyn(["generate", "--engine=openai", "neon rain"], {
        cwd: dir,
        env: live("openai", { OPENAI_MODEL: "model-from-env" }),
      });
      assert.equal(fromEnv.code, 0, fromEnv.stderr);
      assert.equal((server.requests.at(-1)!.body as JsonObject).model, "model-from-env");

      const misuse = await runSyn(["generate", "--model", "x", "neon rain"], { cwd: dir, env });
      assert.equal(misuse.code, 2);
      assert.match(misuse.stderr, /--endpoint and --model apply to gemini, openai and anthropic/);
    }),
});

Deno.test({
  name:
    "syn generate maps 401, 429, timeout, malformed JSON and oversize to failure reasons and exit 1",
  fn: () =>
    withWorld(async ({ dir, server, validator, live }) => {
      const cases: [string, string, number, string[]][] = [
        ["401", "auth_error", 1, []],
        ["429", "rate_limited", 4, []],
        // --timeout-s bounds the whole wait: a hang past it leaves no time for a retry.
        ["hang", "timeout", 1, ["--timeout-s", "0.3"]],
        ["malformed", "bad_response", 1, []],
        ["oversized", "bad_response", 1, []],
      ];
      for (const [fault, reason, attempts, flags] of cases) {
        // Retried faults cost backoff time: once, relaxed (a failure exits 1 even then).
        const modes = attempts > 1 ? ["--relaxed"] : ["--strict", "--relaxed"];
        for (const strictness of modes) {
          const before = server.requests.length;
          const result = await runSyn([
            "generate",
            "--engine=openai",
            `fault ${fault}`,
            strictness,
            ...flags,
          ], {
            cwd: dir,
            env: live("openai", { OPENAI_ENDPOINT: server.faultUrl("openai", fault) }),
          });
          const label = `${fault} ${strictness}`;
          assert.equal(result.code, 1, `${label}: ${result.stderr}`);
          const summary = JSON.parse(result.stdout);
          assert.equal(summary.status, "failed", label);
          assert.equal(summary.failure.reason, reason, label);
          assert.equal(server.requests.length - before, attempts, `${label}: attempts`);
          assert.match(result.stderr, new RegExp(`error: ${reason}: `));
          const entry = (await externalEntries(dir)).at(-1)!;
          assert.deepEqual(entry.failure, summary.failure);
          assert.equal(entry.normalized_asset, null);
          assert.equal(entry.severity, "error");
        }
      }
      const oversize = (await externalEntries(dir)).filter((entry) =>
        (entry.prompt as string).includes("oversized")
      );
      assert.match((oversize[0].failure as JsonObject).detail as string, /1 MiB|1048576|byte/i);
      assert.equal(validator.calls, 0);
      await assert.rejects(() => Deno.stat(`${dir}/meta/output/assets`));
      assert.equal(await assertLogRecordsValid(`${dir}/meta/output/labs`), 2 * 9);
    }),
});

Deno.test({
  name:
    "syn generate refuses a request body over 256 KiB before sending: bad_request in external.jsonl",
  fn: () =>
    withWorld(async ({ dir, server, validator, live }) => {
      // Too long for one command-line argument: a one-line batch file carries it. Within the
      // prompt cap (256 KiB), but its quotes are escaped twice on the way into the body.
      await Deno.writeTextFile(`${dir}/long.txt`, '"neon rain" '.repeat(20_000) + "\n");
      const result = await runSyn(["generate", "--engine=openai", "--batch", "long.txt"], {
        cwd: dir,
        env: live("openai"),
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(JSON.parse(result.stdout).results[0].failure.reason, "bad_request");
      assert.equal(server.requests.length, 0);
      assert.equal(validator.calls, 0);
      const entry = (await externalEntries(dir)).at(-1)!;
      assert.equal((entry.failure as JsonObject).reason, "bad_request");
      assert.match((entry.failure as JsonObject).detail as string, /256 KiB/);
      assert.equal(entry.raw_response, null);
      await assertLogRecordsValid(`${dir}/meta/output/labs`);
    }),
});

Deno.test({
  name: "syn generate temperature: --temperature > OPENAI_TEMPERATURE (openai only) > none",
  fn: () =>
    withWorld(async ({ dir, server, validator, live }) => {
      const mock = { MCP_READY_FILE: `${dir}/mcp.ready`, ...validator.env };
      const cases: [string, string[], Record<string, string>, number | null][] = [
        ["openai", [], {}, null],
        ["openai", [], { OPENAI_TEMPERATURE: "0.3" }, 0.3],
        ["openai", ["--temperature", "0.9"], { OPENAI_TEMPERATURE: "0.3" }, 0.9],
        ["gemini", [], { OPENAI_TEMPERATURE: "0.3" }, null],
        ["gemini", ["--temperature", "1.1"], {}, 1.1],
      ];
      for (const [engine, flags, env, expected] of cases) {
        const label = `${engine} ${flags.join(" ")} ${JSON.stringify(env)}`;
        const result = await runSyn(["generate", `--engine=${engine}`, "neon rain", ...flags], {
          cwd: dir,
          env: { ...mock, ...env },
        });
        assert.equal(result.code, 0, `${label}: ${result.stderr}`);
        const asset = JSON.parse(await Deno.readTextFile(JSON.parse(result.stdout).asset_path));
        assert.equal(asset.meta_info.provenance.parameters.temperature, expected, label);
        const entry = (await externalEntries(dir)).at(-1)!;
        assert.equal((entry.request as JsonObject).temperature, expected, label);
      }
      // Live: the value reaches the provider's wire request.
      const fromEnv = await runSyn(["generate", "--engine=openai", "neon rain"], {
        cwd: dir,
        env: live("openai", { OPENAI_TEMPERATURE: "0.25" }),
      });
      assert.equal(fromEnv.code, 0, fromEnv.stderr);
      assert.equal((server.requests.at(-1)!.body as JsonObject).temperature, 0.25);
      const fromFlag = await runSyn(
        ["generate", "--engine=openai", "neon rain", "--temperature", "1.5"],
        { cwd: dir, env: live("openai", { OPENAI_TEMPERATURE: "0.25" }) },
      );
      assert.equal(fromFlag.code, 0, fromFlag.stderr);
      assert.equal((server.requests.at(-1)!.body as JsonObject).temperature, 1.5);
    }),
});

Deno.test({
  name:
    "syn generate logs a validator payload over 1 MiB as a structured failure in external.jsonl",
  fn: async () => {
    const cap = 1024 * 1024;
    const minimal = (fragment: string) => ({
      shader: { fragment_shader: fragment },
      tone: { synth: { type: "Tone.Synth" } },
      haptic: {},
      controls: [],
      meta: { title: "Huge" },
    });
    const base = JSON.stringify(normalizeAsset(minimal("void main() {}"))).length + 400;
    const fragment = "void main() {}" + " ".repeat(cap + 1500 - base);
    await withWorld(async ({ dir, validator, live }) => {
      const result = await runSyn(["generate", "--engine=openai", "huge shader"], {
        cwd: dir,
        env: live("openai"),
      });
      assert.equal(result.code, 1, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.status, "invalid");
      const entry = (await externalEntries(dir)).at(-1)!;
      assert.equal((entry.failure as JsonObject).reason, "validation_failed");
      assert.deepEqual((entry.mcp_result as JsonObject).errors, [{
        path: "",
        msg: "payload_too_large",
      }]);
      assert.ok((entry.raw_response as { size: number }).size < cap);
      assert.equal(validator.calls, 0, "refused before sending");
    }, { answer: () => minimal(fragment) });
  },
});

Deno.test({
  name: "a run with a recognizable fake key leaves the key in no file and no output",
  fn: () =>
    withWorld(async ({ dir, server, live }) => {
      const key = "RECOGNIZABLE-KEY-7f3a9c2e1d";
      const outputs: string[] = [];
      const runs: [string, string, Record<string, string>][] = [
        ["ok", "--relaxed", {}],
        ["ok", "--strict", {}],
        ["401", "--relaxed", {}],
        ["401", "--strict", {}],
        ["malformed", "--relaxed", {}],
        // The provider echoes the key inside its answer.
        ["ok", "--relaxed", { echo: "1" }],
        ["ok", "--strict", { echo: "1" }],
        // The validator cannot be reached.
        ["ok", "--relaxed", { MCP_PORT: String(closedPort()) }],
      ];
      for (const [fault, strictness, extra] of runs) {
        const { echo, ...env } = extra;
        const result = await runSyn([
          "generate",
          "--engine=openai",
          `key check ${fault}${echo ? " echo" : ""}`,
          strictness,
        ], {
          cwd: dir,
          env: live("openai", {
            OPENAI_API_KEY: key,
            OPENAI_ENDPOINT: server.faultUrl("openai", fault),
            ...env,
          }),
        });
        outputs.push(result.stdout, result.stderr);
      }
      // The key was really used: the server saw it in the Authorization header.
      assert.ok(
        server.requests.some((request) => request.headers.authorization === `Bearer ${key}`),
      );
      for (const text of outputs) assert.equal(text.includes(key), false);
      const files = [...filesUnder(dir)];
      assert.ok(files.some((file) => file.endsWith("external.jsonl")));
      const assets = files.filter((file) => file.includes("/assets/"));
      assert.equal(assets.length, 4, "ok ×2, echo ×2");
      const echoed = await Promise.all(assets.map((file) => Deno.readTextFile(file)));
      assert.equal(
        echoed.filter((text) => text.includes("made with key ***redacted***")).length,
        2,
      );
      for (const file of files) {
        assert.equal((await Deno.readTextFile(file)).includes(key), false, file);
      }
    }),
});
