/**
 * Ctrl-C during `syn generate`: real SIGINTs to a real `syn` process, in the middle of a
 * batch and of a single external run. What finished is written and logged, what was in
 * flight is logged as interrupted (never `ok`), no temporary file is left, the report says
 * what finished, and the exit code is 130.
 */
import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import { mockProviderAnswer, type RequestEnvelope } from "../lib/generate/mod.ts";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";
import { type MockAnswerContext, startMockLlmServer } from "./fakes/mock_llm_server.ts";
import {
  assertLogRecordsValid,
  filesUnder,
  startCountingValidator,
  tempDir,
} from "./generate_fakes.ts";
import { waitUntil } from "./fakes/wait_until.ts";

function answer(context: MockAnswerContext): unknown {
  return mockProviderAnswer(context.provider, JSON.parse(context.prompt) as RequestEnvelope);
}

async function records(path: string): Promise<Record<string, unknown>[]> {
  try {
    return await readJsonl(path) as Record<string, unknown>[];
  } catch {
    return [];
  }
}

/** Runs `syn generate` live against `server`, sends SIGINT once `ready()` holds. */
async function interrupted(
  args: string[],
  options: {
    dir: string;
    env: Record<string, string>;
    ready: () => boolean | Promise<boolean>;
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), "generate", ...args],
    clearEnv: true,
    env: childEnv(options.env),
    cwd: options.dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const cancel = killAfter(child);
  const output = child.output();
  try {
    await waitUntil(options.ready, "the run to reach the point of interruption", {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    child.kill("SIGINT");
    const result = await output;
    const decoder = new TextDecoder();
    return {
      code: result.code,
      stdout: decoder.decode(result.stdout),
      stderr: decoder.decode(result.stderr),
    };
  } finally {
    cancel();
  }
}

async function world(
  fn: (setup: {
    dir: string;
    env: Record<string, string>;
    server: Awaited<ReturnType<typeof startMockLlmServer>>;
  }) => Promise<void>,
) {
  using work = tempDir("syn_interrupt_");
  const server = await startMockLlmServer({ answer });
  const validator = await startCountingValidator();
  try {
    await fn({
      dir: work.path,
      server,
      env: {
        ...validator.env,
        HOME: work.path,
        LABS_EXTERNAL_LIVE: "1",
        OPENAI_API_KEY: "sk-test-FAKEKEY-5566778899aabb",
        OPENAI_ENDPOINT: server.openaiUrl,
      },
    });
  } finally {
    await server.close();
    await validator.close();
  }
}

Deno.test({
  name: "Ctrl-C in a batch keeps what finished, logs what was in flight as interrupted, exits 130",
  async fn() {
    await world(async ({ dir, env, server }) => {
      const prompts = Array.from({ length: 8 }, (_, index) => `a pulsing circle number ${index}`);
      await Deno.writeTextFile(`${dir}/prompts.txt`, prompts.join("\n") + "\n");
      // Two answers, then every request hangs until the server closes.
      server.script(null, null, ...Array(8).fill("hang"));
      const logs = `${dir}/meta/output/labs`;
      const result = await interrupted(
        ["--engine=openai", "--batch", "prompts.txt", "--concurrency", "2"],
        {
          dir,
          env,
          ready: async () =>
            server.requests.length >= 4 && (await records(`${logs}/generator.jsonl`)).length >= 2,
        },
      );
      assert.equal(result.code, 130, result.stderr);
      assert.match(result.stderr, /interrupted: 4 not run; 4 prompts: 2 ok, 0 invalid, 2 failed/);
      const report = JSON.parse(result.stdout);
      assert.equal(report.ok, false);
      assert.equal(report.interrupted, true);
      assert.equal(report.summary.not_run, 4);
      const reasons = report.results.map((r: { failure: { reason: string } | null }) =>
        r.failure?.reason ?? "ok"
      );
      assert.deepEqual(reasons, ["ok", "ok", "interrupted", "interrupted"]);
      // Every file in the asset folder is a finished asset; every ok record names one.
      const files = [...filesUnder(`${dir}/meta/output/assets`)];
      assert.equal(files.length, 2, files.join("\n"));
      assert.ok(files.every((file) => file.endsWith(".json")), "no temporary file left");
      const generator = await records(`${logs}/generator.jsonl`);
      for (const record of generator) {
        if (record.status === "ok") assert.ok(files.includes(String(record.asset_path)));
        else assert.equal((record.failure as { reason: string }).reason, "interrupted");
      }
      assert.equal(generator.length, 4);
      const external = await records(`${logs}/external.jsonl`);
      assert.equal(external.filter((r) => r.failure !== null).length, 2);
      await assertLogRecordsValid(logs);
    });
  },
});

Deno.test({
  name: "Ctrl-C during a single external generate logs the run to external.jsonl and exits 130",
  async fn() {
    await world(async ({ dir, env, server }) => {
      server.script("hang");
      const result = await interrupted(["--engine=openai", "neon rain"], {
        dir,
        env,
        ready: () => server.requests.length >= 1,
      });
      assert.equal(result.code, 130, result.stderr);
      assert.match(result.stderr, /interrupted by SIGINT/);
      assert.equal(JSON.parse(result.stdout).failure.reason, "interrupted");
      const logs = `${dir}/meta/output/labs`;
      const [external] = await records(`${logs}/external.jsonl`);
      assert.equal((external.failure as { reason: string }).reason, "interrupted");
      assert.notEqual(external.provenance, null);
      const [generator] = await records(`${logs}/generator.jsonl`);
      assert.equal(generator.status, "failed");
      assert.deepEqual([...filesUnder(dir)].filter((file) => file.includes("/assets/")), []);
      await assertLogRecordsValid(logs);
    });
  },
});

/**
 * A validator service over TCP (NDJSON JSON-RPC) that accepts the first `answered` assets and
 * never answers after that, as a remote validator that a Ctrl-C does not stop.
 */
function startStallingValidator(answered: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let asked = 0;
  const conns = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    conns.add(conn);
    let buffer = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of conn.readable) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const request = JSON.parse(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (request.id === undefined) continue;
          const validation = request.method === "validate_asset";
          if (validation && ++asked > answered) continue;
          const result = validation
            ? { ok: true, errors: [] }
            : { ok: false, reason: "unsupported" };
          const line = JSON.stringify({ jsonrpc: "2.0", id: request.id, result }) + "\n";
          await conn.write(new TextEncoder().encode(line));
        }
      }
    } catch {
      // the client went away
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) void serve(conn);
    } catch {
      // closed
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    env: { MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(port) },
    get asked() {
      return asked;
    },
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}

Deno.test({
  name: "Ctrl-C in a deterministic batch does not wait for a validator that has not answered",
  async fn() {
    using work = tempDir("syn_interrupt_");
    const dir = work.path;
    const validator = startStallingValidator(2);
    try {
      const prompts = Array.from({ length: 8 }, (_, index) => `a calm blue ocean ${index}`);
      await Deno.writeTextFile(`${dir}/prompts.txt`, prompts.join("\n") + "\n");
      const logs = `${dir}/meta/output/labs`;
      const result = await interrupted(["--batch", "prompts.txt", "--concurrency", "2"], {
        dir,
        env: { ...validator.env, HOME: dir },
        ready: async () =>
          validator.asked >= 4 && (await records(`${logs}/generator.jsonl`)).length >= 2,
      });
      assert.equal(result.code, 130, result.stderr);
      const report = JSON.parse(result.stdout);
      assert.equal(report.interrupted, true);
      assert.deepEqual(
        report.results.map((r: { failure: { reason: string } | null }) =>
          r.failure?.reason ?? "ok"
        ),
        ["ok", "ok", "interrupted", "interrupted"],
      );
      const files = [...filesUnder(`${dir}/meta/output/assets`)];
      assert.equal(files.length, 2, files.join("\n"));
      assert.ok(files.every((file) => file.endsWith(".json")), "no temporary file left");
      const generator = await records(`${logs}/generator.jsonl`);
      assert.deepEqual(generator.map((r) => r.status).sort(), ["failed", "failed", "ok", "ok"]);
      await assertLogRecordsValid(logs);
    } finally {
      await validator.close();
    }
  },
});
