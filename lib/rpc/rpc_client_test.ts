import assert from "node:assert/strict";
import { createMemoryConnectionPair, serveConnection } from "./connection.ts";
import { resultResponse } from "./messages.ts";
import { RpcClient } from "./rpc_client.ts";

function echoServer(options: { delayMs?: number; maxLineBytes?: number } = {}) {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const served = serveConnection(serverSide, {
    async handle(request) {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (request.method === "huge") return { text: "h".repeat(3000) };
      return { method: request.method, params: request.params };
    },
    oversize: (id) => resultResponse(id, { ok: false, oversize: true }),
  }, { maxLineBytes: options.maxLineBytes });
  return { clientSide, serverSide, served };
}

Deno.test("RpcClient.request() resolves results in order over a memory pair", async () => {
  const { clientSide, served } = echoServer();
  const client = new RpcClient(clientSide);
  const outcomes = await Promise.all([1, 2, 3].map((n) => client.request(`m${n}`, { n })));
  assert.deepEqual(
    outcomes,
    [1, 2, 3].map((n) => ({
      kind: "result",
      result: { method: `m${n}`, params: { n } },
    })),
  );
  await client.close();
  await served;
});

Deno.test("RpcClient.request() refuses to send a line over the cap", async () => {
  const { clientSide, served } = echoServer();
  const client = new RpcClient(clientSide, { maxLineBytes: 1000 });
  const outcome = await client.request("m", { blob: "x".repeat(2000) });
  assert.equal(outcome.kind, "failure");
  assert.equal(outcome.kind === "failure" && outcome.reason, "payload_too_large");
  assert.deepEqual(await client.request("ok"), { kind: "result", result: { method: "ok" } });
  await client.close();
  await served;
});

Deno.test("RpcClient discards an oversized reply and fails only that call", async () => {
  const { clientSide, served } = echoServer();
  const client = new RpcClient(clientSide, { maxLineBytes: 1000 });
  const [huge, after] = await Promise.all([client.request("huge"), client.request("next")]);
  assert.equal(huge.kind === "failure" && huge.reason, "transport_error");
  assert.match(huge.kind === "failure" ? huge.detail : "", /reply is \d+ bytes; the limit is 1000/);
  assert.equal(after.kind, "result");
  await client.close();
  await served;
});

Deno.test("RpcClient.request() times out instead of hanging", async () => {
  const { clientSide, served } = echoServer({ delayMs: 200 });
  const client = new RpcClient(clientSide);
  const outcome = await client.request("slow", undefined, { timeoutMs: 20 });
  assert.deepEqual(outcome, {
    kind: "failure",
    reason: "timeout",
    detail: "no reply within 20 ms",
  });
  await client.close();
  await served;
});

Deno.test("RpcClient resolves pending calls when the peer closes the connection", async () => {
  const { clientSide, serverSide, served } = echoServer({ delayMs: 100 });
  const client = new RpcClient(clientSide, { describeClose: () => "peer went away" });
  const pending = client.request("slow");
  setTimeout(() => serverSide.close(), 10);
  assert.deepEqual(await pending, {
    kind: "failure",
    reason: "transport_error",
    detail: "peer went away",
  });
  assert.deepEqual(await client.request("after"), {
    kind: "failure",
    reason: "transport_error",
    detail: "peer went away",
  });
  await client.close();
  await served;
});

Deno.test("RpcClient maps an id-null error to the oldest pending call", async () => {
  const [serverSide, clientSide] = createMemoryConnectionPair();
  const client = new RpcClient(clientSide);
  const pending = client.request("anything");
  await serverSide.write(
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n',
  );
  assert.deepEqual(await pending, {
    kind: "error",
    error: { code: -32700, message: "Parse error" },
  });
  await client.close();
  serverSide.close();
});
