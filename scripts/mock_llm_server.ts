/**
 * @module
 * Runs the mock LLM server (`tests/fakes/mock_llm_server.ts`) by hand, for demos of live
 * mode without a provider:
 *
 * ```sh
 * deno run -A scripts/mock_llm_server.ts --port 8787
 * LABS_EXTERNAL_LIVE=1 OPENAI_API_KEY=demo OPENAI_ENDPOINT=http://127.0.0.1:8787/openai/v1 …
 * ```
 *
 * A fault is chosen per request by the `x-mock-fault` header or a path prefix
 * `/fault/<name>/…` (names in `tests/fakes/mock_llm_faults.ts`).
 */
import { parseArgs } from "node:util";
import { loadConfig, redactText } from "../lib/core/mod.ts";
import { mockProviderAnswer, type RequestEnvelope } from "../lib/generate/mod.ts";
import { type MockAnswerContext, startMockLlmServer } from "../tests/fakes/mock_llm_server.ts";

/**
 * For demos of `syn generate --engine=…` in live mode against this server: a prompt that
 * is a Labs request envelope gets the same prompt-dependent asset answer the mock mode
 * gives; anything else falls back to the default answer.
 */
function answerGenerateEnvelope(context: MockAnswerContext): unknown {
  let envelope: Partial<RequestEnvelope>;
  try {
    envelope = JSON.parse(context.prompt);
  } catch {
    return undefined;
  }
  if (typeof envelope?.prompt !== "string" || typeof envelope.trace_id !== "string") {
    return undefined;
  }
  return mockProviderAnswer(context.provider, envelope as RequestEnvelope);
}

/** The port from the command line; exits 2 on bad input. */
function portFromArgs(args: string[]): number {
  const { values } = parseArgs({
    args,
    options: { port: { type: "string", default: "8787" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    console.log("Usage: deno run -A scripts/mock_llm_server.ts [--port 8787]");
    Deno.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Port must be an integer from 0 to 65535: ${values.port}`);
    Deno.exit(2);
  }
  return port;
}

if (import.meta.main) {
  const secrets = loadConfig((name) => Deno.env.get(name)).secrets;
  const server = await startMockLlmServer({
    port: portFromArgs(Deno.args),
    answer: answerGenerateEnvelope,
    log: (line) => console.log(redactText(line, secrets)),
  });
  console.log(`mock LLM server on ${server.url}`);
  console.log(`  OPENAI_ENDPOINT=${server.openaiUrl}`);
  console.log(`  GEMINI_ENDPOINT=${server.geminiUrl}`);
  console.log(`  ANTHROPIC_ENDPOINT=${server.anthropicUrl}`);
  console.log("faults: header x-mock-fault: <name>, or a path prefix /fault/<name>/…");
  const stop = async () => {
    await server.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
