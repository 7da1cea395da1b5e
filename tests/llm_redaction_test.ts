import { loadConfig } from "../lib/core/mod.ts";
import { childEnv } from "./fakes/child_env.ts";
import { FakeClock } from "./fakes/fake_clock.ts";
/**
 * Hygiene: with recognizable fake keys, nothing the LLM layer writes — log lines, error
 * messages and data, results, and the demo server's stdout and stderr — contains a key.
 */
import assert from "node:assert/strict";
import { createLanguageModel, ProviderError, resolveModelConfig } from "../lib/llm/mod.ts";
import { startMockLlmServer } from "./fakes/mock_llm_server.ts";
import { rejection } from "./fakes/rejection.ts";

const KEYS: Record<string, string> = {
  OPENAI_API_KEY: "sk-proj-SYNFAKEKEY-openai-0123456789",
  GEMINI_API_KEY: "SYNFAKEKEY-gemini-0123456789",
  ANTHROPIC_API_KEY: "sk-ant-SYNFAKEKEY-anthropic-0123456789",
};

function assertNoKey(text: string, where: string) {
  assert.ok(!text.includes("SYNFAKEKEY"), `${where} leaks a key: ${text.slice(0, 400)}`);
}

Deno.test("redaction: errors, logs and results never contain a key", async () => {
  await using server = await startMockLlmServer();
  const written: string[] = [];
  const urls = {
    openai: server.openaiUrl,
    gemini: server.geminiUrl,
    anthropic: server.anthropicUrl,
  };
  for (const provider of ["openai", "gemini", "anthropic"] as const) {
    const env: Record<string, string> = {
      LABS_EXTERNAL_LIVE: "1",
      ...KEYS,
      [`${provider.toUpperCase()}_ENDPOINT`]: urls[provider],
    };
    const model = createLanguageModel(
      resolveModelConfig(provider, { config: loadConfig((name) => env[name]) }),
      {
        clock: new FakeClock(),
        log: (line) => written.push(line),
      },
    );
    written.push(JSON.stringify(await model.generate({ prompt: "hello", traceId: "t1" })));
    // Every 401 echoes the received key, as real providers partly do.
    const faults = [["401"], ["429", "429", "429", "429"], ["500", "ok"], ["malformed"]];
    for (const script of faults) {
      server.script(...script);
      const outcome = await model.generate({ prompt: "x" }).then(
        (result) => JSON.stringify(result),
        (error) => {
          assert.ok(error instanceof ProviderError);
          return [error.message, error.detail, JSON.stringify(error), JSON.stringify(error.data)]
            .join("\n");
        },
      );
      written.push(outcome);
    }
    for (const fault of ["401", "stream-error"]) {
      server.script(fault);
      try {
        const onTextDelta = (text: string) => written.push(text);
        for await (const event of model.stream({ prompt: "x", onTextDelta })) {
          written.push(JSON.stringify(event));
        }
      } catch (error) {
        assert.ok(error instanceof ProviderError);
        written.push(error.message, JSON.stringify(error));
      }
    }
  }
  assert.ok(server.requests.length >= 30, "the server saw the requests");
  assert.ok(written.some((line) => line.includes("***redacted***")), "the echoed key was masked");
  for (const line of written) assertNoKey(line, "output");
});

Deno.test("redaction: a key in an endpoint's query is masked in logs, errors and results", async () => {
  await using server = await startMockLlmServer();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const written: string[] = [];
  for (
    const endpoint of [
      `${server.geminiUrl}?key=SYNFAKEKEY-query-0123`,
      `http://127.0.0.1:${closedPort}/v1beta?key=SYNFAKEKEY-query-0123`,
    ]
  ) {
    const env: Record<string, string> = { ...KEYS, GEMINI_ENDPOINT: endpoint };
    const config = resolveModelConfig("gemini", { config: loadConfig((name) => env[name]) });
    const mock = createLanguageModel(config);
    written.push(mock.endpoint, JSON.stringify(await mock.generate({ prompt: "x" })));
    const live = createLanguageModel(
      resolveModelConfig("gemini", {
        flags: { live: true },
        config: loadConfig((name) => env[name]),
      }),
      { clock: new FakeClock(), log: (line) => written.push(line) },
    );
    written.push(live.endpoint);
    const outcome = await live.generate({ prompt: "x" }).then(
      (result) => JSON.stringify(result),
      (error) => [error.message, JSON.stringify(error.data)].join("\n"),
    );
    written.push(outcome);
  }
  assert.equal(server.requests[0].search, "?key=SYNFAKEKEY-query-0123", "the key was sent");
  assert.ok(written.some((line) => line.includes("network_error")), written.join("\n"));
  assert.ok(written.some((line) => line.includes("?key=***redacted***")));
  for (const line of written) assertNoKey(line, "output");
});

Deno.test("redaction: a key cut short by a truncated error message is still masked", async () => {
  const env: Record<string, string> = { LABS_EXTERNAL_LIVE: "1", ...KEYS };
  const key = KEYS.GEMINI_API_KEY;
  // The provider echoes the key where the 300-character detail cut falls inside it, leaving
  // "SYNFAKEKEY-gem", which no key pattern recognizes.
  const message = `${"x".repeat(257)} Incorrect API key provided: ${key}`;
  const written: string[] = [];
  const model = createLanguageModel(
    resolveModelConfig("gemini", { config: loadConfig((name) => env[name]) }),
    {
      clock: new FakeClock(),
      log: (line) => written.push(line),
      fetch: () => Promise.resolve(Response.json({ error: { message } }, { status: 401 })),
    },
  );
  const error = await rejection(model.generate({ prompt: "x" }), ProviderError);
  assert.equal(error.reason, "auth_error");
  written.push(error.message, error.detail, JSON.stringify(error), JSON.stringify(error.data));
  assert.ok(written.some((line) => line.includes("***redacted***")), written.join("\n"));
  for (const line of written) assertNoKey(line, "output");
});

Deno.test("redaction: the demo server's stdout and stderr never contain a key", async () => {
  const script = new URL("../scripts/mock_llm_server.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "--port", "0"],
    clearEnv: true,
    env: childEnv(KEYS),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  let stdout = "";
  while (!/ANTHROPIC_ENDPOINT=\S+\n/.test(stdout)) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += decoder.decode(value, { stream: true });
  }
  const base = /mock LLM server on (\S+)/.exec(stdout)?.[1];
  assert.ok(base, `no URL in: ${stdout}`);
  const written: string[] = [];
  for (const provider of ["openai", "gemini", "anthropic"] as const) {
    const path =
      { openai: "/openai/v1", gemini: "/gemini/v1beta", anthropic: "/anthropic" }[provider];
    const env: Record<string, string> = {
      LABS_EXTERNAL_LIVE: "1",
      ...KEYS,
      [`${provider.toUpperCase()}_ENDPOINT`]: `${base}/fault/401${path}`,
    };
    const model = createLanguageModel(
      resolveModelConfig(provider, { config: loadConfig((name) => env[name]) }),
      {
        log: (line) => written.push(line),
      },
    );
    const error = await rejection(model.generate({ prompt: "x" }), ProviderError);
    assert.equal(error.reason, "auth_error");
    written.push(error.message);
  }
  child.kill("SIGTERM");
  const stderrText = decoder.decode(await new Response(child.stderr).arrayBuffer());
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += decoder.decode(value, { stream: true });
  }
  await child.status;
  assert.match(stdout, /POST \/openai\/v1\/chat\/completions openai fault=401/);
  assertNoKey(stdout, "server stdout");
  assertNoKey(stderrText, "server stderr");
  for (const line of written) assertNoKey(line, "client output");
});
