import assert from "node:assert/strict";
import { loadConfig } from "../core/mod.ts";
import { createMemoryConnectionPair, serveConnection } from "../rpc/mod.ts";
import { fakeSchemaStore } from "../../tests/mcp_fake_store.ts";
import { createValidatorHandler } from "./validator_handler.ts";
import { ValidatorService } from "./validator_service.ts";
import { connectValidator } from "./connect_validator.ts";
import { validatorClientFromConnection } from "./validator_client.ts";

const SELF = ["/bin/syn"];
const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

Deno.test("connectValidator() turns a refused connection into transport_error results", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = await connectValidator({
    config: envOf({ MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(port) }),
    selfCommand: SELF,
  });
  assert.equal(client.transport, "tcp");
  const verdict = await client.validateAsset({ name: "x" });
  assert.equal(verdict.ok, false);
  assert.equal(verdict.reason, "transport_error");
  assert.match(verdict.detail ?? "", /cannot connect to 127\.0\.0\.1:\d+/);
  await client.close();
});

Deno.test("validatorClientFromConnection() maps replies, RPC errors and the size cap", async () => {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const service = new ValidatorService({ store: fakeSchemaStore() });
  const served = serveConnection(serverSide, createValidatorHandler(service, { mcp: false }));
  const client = validatorClientFromConnection(clientSide);
  assert.equal(client.transport, "memory");
  assert.deepEqual(await client.validateAsset({ name: "x" }), { ok: true, errors: [] });
  assert.deepEqual(await client.validateAsset({ name: "" }, "synesthetic-asset"), {
    ok: false,
    reason: "validation_failed",
    errors: [{ path: "/name", msg: "expected non-empty string" }],
  });
  assert.deepEqual(await client.call("nope"), {
    ok: false,
    reason: "unsupported",
    detail: "tool not implemented",
  });
  // With MCP off, an MCP method is a JSON-RPC error, which the client maps.
  assert.deepEqual(await client.call("tools/list"), {
    ok: false,
    reason: "rpc_error",
    code: -32601,
    detail: "Method not found: tools/list",
  });
  const tooLarge = await client.validateAsset({ name: "é".repeat(600_000) });
  assert.equal(tooLarge.reason, "validation_failed");
  assert.deepEqual(tooLarge.errors, [{ path: "", msg: "payload_too_large" }]);
  await client.close();
  assert.deepEqual(await client.call("list_schemas"), {
    ok: false,
    reason: "transport_error",
    detail: "client closed",
  });
  await served;
});
