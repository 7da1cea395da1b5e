import assert from "node:assert/strict";
import { type RpcConnection, settlesWithin } from "../rpc/mod.ts";
import { fakeSchemaStore } from "../../tests/mcp_fake_store.ts";
import { waitUntil } from "../../tests/fakes/wait_until.ts";
import { startValidatorServer } from "./serve_validator.ts";
import { createValidatorHandler } from "./validator_handler.ts";
import { ValidatorService } from "./validator_service.ts";

Deno.test("startValidatorServer() stdio shutdown is not held up by a reader that stopped reading", async () => {
  const encoder = new TextEncoder();
  let input!: ReadableStreamDefaultController<Uint8Array>;
  const writes: string[] = [];
  let closed = false;
  // stdout whose reader has gone away: every write stays pending.
  const stalled: RpcConnection = {
    readable: new ReadableStream({ start: (controller) => void (input = controller) }),
    write(data) {
      writes.push(typeof data === "string" ? data : new TextDecoder().decode(data));
      return new Promise(() => {});
    },
    close() {
      closed = true;
      input.close();
    },
  };
  const service = new ValidatorService({ store: fakeSchemaStore() });
  const server = await startValidatorServer(
    { mode: "stdio", connection: stalled },
    () => createValidatorHandler(service, { mcp: false }),
    { shutdownGraceMs: 50 },
  );
  input.enqueue(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"list_schemas"}\n'));
  await waitUntil(() => writes.length > 0, "the reply's write", {
    timeoutMs: 5_000,
    intervalMs: 5,
  });
  assert.equal(writes.length, 1, "the reply was attempted");
  // Without the grace period this never returns; the limit turns a hang into a failure.
  const stopping = server.shutdown();
  assert.ok(await settlesWithin(stopping, 5_000), "shutdown is still waiting");
  await stopping;
  assert.equal(closed, true, "the connection is closed after the grace period");
  assert.equal(await server.shutdown(), undefined, "a second shutdown returns at once");
});
