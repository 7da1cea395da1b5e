import assert from "node:assert/strict";
import { createMemoryConnectionPair, RpcClient, serveConnection } from "../rpc/mod.ts";
import { fakeSchemaStore } from "../../tests/mcp_fake_store.ts";
import { createValidatorHandler } from "./validator_handler.ts";
import { ValidatorService } from "./validator_service.ts";

Deno.test("createValidatorHandler() keeps serving when the MCP session cannot open", async () => {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const service = new ValidatorService({ store: fakeSchemaStore() });
  const logs: string[] = [];
  const served = serveConnection(
    serverSide,
    createValidatorHandler(service, {
      mcp: () => Promise.reject(new Error("cannot load the MCP layer")),
      log: (line) => logs.push(line),
    }),
  );
  const client = new RpcClient(clientSide);
  try {
    assert.deepEqual(await client.request("initialize", {}), {
      kind: "error",
      error: { code: -32603, message: "Internal error" },
    });
    assert.ok(logs.some((line) => line.includes("cannot load the MCP layer")), logs.join("\n"));
    // A response frame from the peer goes to the session that never opened: nothing breaks.
    await clientSide.write('{"jsonrpc":"2.0","id":5,"result":{}}\n');
    const listed = await client.request("list_schemas");
    assert.equal(listed.kind === "result" && (listed.result as { ok: boolean }).ok, true);
  } finally {
    await client.close();
  }
  await served;
});
