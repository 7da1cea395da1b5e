/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * Helper thread of `bench_chat.ts`: `{role: "llm"}` runs the mock provider here,
 * `{role: "clients", ...}` runs the WebSocket clients here, so the server's thread only
 * does the server's work. Times are absolute (`timeOrigin + now`) to compare across threads.
 *
 * The clients open every socket first (connecting is not a per-chunk cost), then send one
 * message each: all at once (`spreadMs` 0, the worst case) or spread evenly over
 * `spreadMs`, as independent users would.
 */
import { startMockLlmServer } from "../tests/fakes/mock_llm_server.ts";

const now = () => performance.timeOrigin + performance.now();
/** How both servers of the bench begin a text chunk event: found without parsing it. */
const CHUNK_PREFIX = '{"event_type":"chunk","payload":{"content":"';

export interface ClientTask {
  role: "clients";
  sessions: number;
  port: number;
  prefix: string;
  spreadMs: number;
  /** The server's bearer token, sent as the `token` query parameter. */
  token?: string;
}

export interface ClientResult {
  id: string;
  start: number;
  /** When each non-empty chunk arrived. */
  chunks: number[];
}

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error(`socket to ${url} failed`));
  });
}

function converse(socket: WebSocket, id: string, delayMs: number): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const chunks: number[] = [];
    let start = 0;
    socket.onmessage = (message) => {
      const text = String(message.data);
      if (text.startsWith(CHUNK_PREFIX) && text[CHUNK_PREFIX.length] !== '"') {
        chunks.push(now());
        return;
      }
      if (JSON.parse(text).event_type === "done") {
        socket.close();
        resolve({ id, start, chunks });
      }
    };
    socket.onclose = () => reject(new Error(`session ${id} closed before done`));
    setTimeout(() => {
      start = now();
      socket.send(JSON.stringify({
        action: "message",
        version: "1.0.0",
        data: { content: "go", correlation_id: "c" },
      }));
    }, delayMs);
  });
}

async function clients(task: ClientTask): Promise<ClientResult[]> {
  const ids = Array.from({ length: task.sessions }, (_, i) => `${task.prefix}-${i}`);
  const sockets = await Promise.all(
    ids.map((id) =>
      open(
        `ws://127.0.0.1:${task.port}/chat/kgent?session=${id}${
          task.token ? `&token=${task.token}` : ""
        }`,
      )
    ),
  );
  return await Promise.all(
    sockets.map((socket, i) => converse(socket, ids[i], (task.spreadMs * i) / task.sessions)),
  );
}

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
  self.postMessage(await clients(task as ClientTask));
};
