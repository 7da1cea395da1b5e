import assert from "node:assert/strict";
import {
  createMemoryConnectionPair,
  RPC_ERROR,
  RpcClient,
  RpcError,
  serveConnection,
} from "../rpc/mod.ts";
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

Deno.test("createValidatorHandler() answers an unknown direct-dialect method as the spec's unsupported result", async () => {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const service = new ValidatorService({ store: fakeSchemaStore() });
  const opened: string[] = [];
  const served = serveConnection(
    serverSide,
    createValidatorHandler(service, {
      mcp: () => {
        opened.push("session");
        return Promise.resolve({
          handle: (request) =>
            Promise.reject(
              new RpcError(RPC_ERROR.methodNotFound, `Method not found: ${request.method}`),
            ),
          close: () => Promise.resolve(),
        });
      },
    }),
  );
  const client = new RpcClient(clientSide);
  try {
    // MCP adapter spec §6 and the reference adapter's recorded answer to `nope`.
    for (const method of ["nope", "validate_many", "list_schemas_"]) {
      assert.deepEqual(await client.request(method, {}), {
        kind: "result",
        result: { ok: false, reason: "unsupported", detail: "tool not implemented" },
      }, method);
    }
    assert.deepEqual(opened, [], "no MCP session for a direct-dialect name");
    // A notification still gets no reply: the next request's answer is the next line.
    await clientSide.write('{"jsonrpc":"2.0","method":"nope"}\n');
    const listed = await client.request("list_schemas");
    assert.equal(listed.kind === "result" && (listed.result as { ok: boolean }).ok, true);
    // Names with a "/" (and initialize, ping) are MCP's: they go to the session.
    const mcp = await client.request("tools/nope", {});
    assert.equal(mcp.kind === "error" && mcp.error.code, -32601);
    assert.deepEqual(opened, ["session"]);
  } finally {
    await client.close();
  }
  await served;
});

Deno.test("createValidatorHandler() with MCP off refuses MCP methods with -32601", async () => {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const service = new ValidatorService({ store: fakeSchemaStore() });
  const served = serveConnection(serverSide, createValidatorHandler(service, { mcp: false }));
  const client = new RpcClient(clientSide);
  try {
    for (const method of ["initialize", "ping", "tools/list"]) {
      const reply = await client.request(method, {});
      assert.equal(reply.kind === "error" && reply.error.code, -32601, method);
    }
    const unknown = await client.request("nope", {});
    assert.equal(
      unknown.kind === "result" && (unknown.result as { reason: string }).reason,
      "unsupported",
    );
  } finally {
    await client.close();
  }
  await served;
});
