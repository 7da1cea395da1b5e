import assert from "node:assert/strict";
import { loadConfig } from "../core/mod.ts";
import { mockLanguageModel } from "../llm/mod.ts";
import { baselineRegistry, ToolRegistry } from "../tools/mod.ts";
import { autoEngine, type ChatBackend, chatModel, openChatSession } from "./chat_backend.ts";
import { DEFAULT_CHAT_FLUX_CONFIG } from "./chat_flux_config.ts";
import { ReplyBuffer } from "./reply_buffer.ts";

function envOf(values: Record<string, string>) {
  return loadConfig((name) => values[name]);
}

Deno.test("autoEngine() takes the first provider key set, then a local endpoint, then the template", () => {
  assert.equal(autoEngine(envOf({})), "template");
  assert.equal(
    autoEngine(envOf({ OPENAI_ENDPOINT: "http://127.0.0.1:1/v1" })),
    "openai-compatible",
  );
  assert.equal(autoEngine(envOf({ GEMINI_API_KEY: "g", OPENAI_ENDPOINT: "x" })), "gemini");
  assert.equal(autoEngine(envOf({ ANTHROPIC_API_KEY: "a", GEMINI_API_KEY: "g" })), "anthropic");
  assert.equal(autoEngine(envOf({ OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" })), "openai");
});

Deno.test("chatModel() is the template backend for template and for auto without keys", () => {
  for (const engine of ["template", "auto"] as const) {
    const model = chatModel(engine, { config: envOf({}) });
    assert.equal(model.provider, "mock");
    assert.equal(model.model, "template");
  }
  const openai = chatModel("auto", {
    config: envOf({ OPENAI_API_KEY: "sk-test-key-0000000000000000" }),
    model: "gpt-test",
  });
  assert.equal(openai.provider, "openai");
  assert.equal(openai.model, "gpt-test");
  assert.throws(() => chatModel("anthropic", { config: envOf({}) }));
});

Deno.test({
  name: "openChatSession() offers the caller's registry and applies the start grants",
  async fn() {
    const root = await Deno.makeTempDir();
    const only = new ToolRegistry();
    await only.register((await baselineRegistry()).get("fs.list_dir")!);
    let built = 0;
    const model = mockLanguageModel(["Hello."]);
    const backend: ChatBackend = {
      model,
      config: { ...DEFAULT_CHAT_FLUX_CONFIG, entropy_budget: 1000 },
      root,
      logContent: false,
      grants: ["net:127.0.0.1"],
      shellAllow: [],
      secrets: [],
      toolRegistry: () => {
        built++;
        return Promise.resolve(only);
      },
    };
    const session = await openChatSession(backend, { id: "s1", agent: "kgent" });
    try {
      assert.equal(built, 1);
      assert.deepEqual(session.checkpoint.state.capabilities_granted, ["net:127.0.0.1"]);
      const reply = session.start({ content: "hi", mode: "reflect", correlation_id: "c1" });
      assert.ok(reply instanceof ReplyBuffer);
      await reply.finished();
      const prompt = JSON.stringify(model.calls[0]);
      assert.match(prompt, /fs\.list_dir/);
      assert.doesNotMatch(prompt, /fs\.read_text/, "a tool the registry does not hold was offered");
    } finally {
      await session.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
