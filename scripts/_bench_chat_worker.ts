/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * Helper thread of `bench_chat.ts`: `{role: "llm"}` runs the mock provider here,
 * `{role: "clients", ...}` runs the WebSocket clients here, so the gateway's thread only
 * does the gateway's work. Times are absolute (`timeOrigin + now`) to compare across threads.
 */
import { startMockLlmServer } from "./mock_llm_server.ts";

const now = () => performance.timeOrigin + performance.now();

self.onmessage = async (event: MessageEvent) => {
  const task = event.data;
  if (task.role === "llm") {
    const llm = await startMockLlmServer({
      answer: () => task.answer,
      chunkSize: 4,
      frameDelayMs: task.delayMs,
    });
    self.postMessage({ openaiUrl: llm.openaiUrl });
    return;
  }
  const results = await Promise.all(
    Array.from(
      { length: task.sessions },
      (_, i) =>
        new Promise<{ id: string; start: number; chunks: number[] }>((resolve, reject) => {
          const id = `${task.prefix}-${i}`;
          const socket = new WebSocket(`ws://127.0.0.1:${task.port}/chat/kgent?session=${id}`);
          const chunks: number[] = [];
          let start = 0;
          socket.onopen = () => {
            start = now();
            socket.send(
              JSON.stringify({
                action: "message",
                version: "1.0.0",
                data: { content: "go", correlation_id: "c" },
              }),
            );
          };
          socket.onmessage = (message) => {
            const data = JSON.parse(message.data);
            if (data.event_type === "chunk" && data.payload.content) {
              chunks.push(now());
            }
            if (data.event_type === "done") {
              socket.close();
              resolve({ id, start, chunks });
            }
          };
          socket.onerror = () => reject(new Error("socket failed"));
        }),
    ),
  );
  self.postMessage(results);
};
