import assert from "node:assert/strict";
import { loadConfig } from "../core/mod.ts";
import { CHAT_TEMPERATURE, chatModel } from "./chat_backend.ts";
import { DEFAULT_CHAT_FLUX_CONFIG } from "./chat_flux_config.ts";
import { ChatGateway } from "./chat_gateway.ts";

/** A local OpenAI-compatible server that keeps each request body. */
function recordingServer() {
  const bodies: Record<string, unknown>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    bodies.push(await request.json());
    return Response.json({
      choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
    });
  });
  return { bodies, endpoint: `http://127.0.0.1:${server.addr.port}/v1`, server };
}

Deno.test("chat model calls carry the K-gent temperature 0.7 unless OPENAI_TEMPERATURE says", async () => {
  const recording = recordingServer();
  try {
    for (const [env, expected] of [[{}, 0.7], [{ OPENAI_TEMPERATURE: "0.2" }, 0.2]] as const) {
      const model = chatModel("openai-compatible", {
        config: loadConfig((name) => (env as Record<string, string>)[name]),
        endpoint: recording.endpoint,
      });
      await model.generate({ prompt: "hello" });
      assert.equal(recording.bodies.at(-1)?.temperature, expected, JSON.stringify(env));
    }
    assert.equal(CHAT_TEMPERATURE, 0.7);
  } finally {
    await recording.server.shutdown();
  }
});

Deno.test("the gateway asks the runtime for a keep-alive ping every heartbeat_interval", async () => {
  const asked: unknown[] = [];
  for (const heartbeat of [5, 0.5]) {
    const gateway = new ChatGateway({
      config: { ...DEFAULT_CHAT_FLUX_CONFIG, heartbeat_interval: heartbeat },
      openSession: () => Promise.reject(new Error("no session in this test")),
      persistent: false,
      sessionTtlSeconds: 60,
      // Deno.upgradeWebSocket pings an idle socket every idleTimeout / 2 seconds.
      upgradeWebSocket: (_request, options) => {
        asked.push(options);
        throw new Error("upgrade seen");
      },
    });
    try {
      const response = gateway.handle(
        new Request("http://127.0.0.1/chat/kgent?session=s1", {
          headers: { upgrade: "websocket" },
        }),
      );
      assert.equal(response.status, 400);
      await response.body?.cancel();
    } finally {
      await gateway.close();
    }
  }
  assert.deepEqual(asked, [{ idleTimeout: 10 }, { idleTimeout: 1 }]);
});
