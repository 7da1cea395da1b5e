import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { DrainingStdioServerTransport, MAX_PENDING_INPUT_BYTES } from "./_stdio_transport.ts";

/** A transport over `chunks` (then the end of input), with what it delivers and reports. */
function transportOver(chunks: (string | Uint8Array)[]) {
  const encoder = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
  const written: string[] = [];
  const transport = new DrainingStdioServerTransport(
    input,
    (bytes) => void written.push(new TextDecoder().decode(bytes)),
  );
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const closed = Promise.withResolvers<void>();
  transport.onmessage = (message) => void messages.push(message);
  transport.onerror = (error) => void errors.push(error.message);
  transport.onclose = () => closed.resolve();
  return { transport, messages, errors, written, closed: closed.promise };
}

Deno.test("DrainingStdioServerTransport frames lines across chunks, skips what is not JSON, and closes at the end once every request is answered", async () => {
  const io = transportOver([
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}\r\n{"jsonrpc":"2.0",',
    '"method":"notifications/initialized"}\nnot json\n',
  ]);
  await io.transport.start();
  let ended = false;
  void io.closed.then(() => ended = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(io.messages.map((message) => "method" in message && message.method), [
    "tools/call",
    "notifications/initialized",
  ]);
  assert.deepEqual(io.errors, []);
  assert.equal(ended, false, "request 1 is still unanswered");
  await io.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await io.closed;
  assert.deepEqual(io.written, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
});

Deno.test("DrainingStdioServerTransport refuses a line over its cap and closes", async () => {
  const io = transportOver([new Uint8Array(MAX_PENDING_INPUT_BYTES + 1).fill(0x61), "\n"]);
  await io.transport.start();
  await io.closed;
  assert.deepEqual(io.messages, []);
  assert.deepEqual(io.errors, [`a line over ${MAX_PENDING_INPUT_BYTES} bytes`]);
});
