import assert from "node:assert/strict";
import { dispatchLine, type RpcHandler } from "./dispatch_line.ts";
import { resultResponse, RPC_ERROR, RpcError } from "./messages.ts";

function handler(calls: string[] = [], logs: string[] = []): RpcHandler {
  return {
    handle(request) {
      calls.push(request.method);
      if (request.method === "boom") throw new Error("secret stack detail");
      if (request.method === "bad") {
        throw new RpcError(RPC_ERROR.invalidParams, "Invalid params: x");
      }
      if (request.method === "bigint") return { value: 1n };
      return { echo: request.params ?? null };
    },
    oversize: (id, bytes) => resultResponse(id, { tooLarge: bytes }),
    log: (line) => logs.push(line),
  };
}

async function reply(text: string, target = handler()): Promise<unknown> {
  const frame = await dispatchLine({ kind: "line", text }, target);
  if (frame === undefined) return undefined;
  assert.ok(frame.endsWith("\n") && !frame.slice(0, -1).includes("\n"), "one line per frame");
  return JSON.parse(frame);
}

Deno.test("dispatchLine() echoes the id exactly and wraps the result", async () => {
  assert.deepEqual(await reply('{"jsonrpc":"2.0","id":"a-1","method":"m","params":{"x":1}}'), {
    jsonrpc: "2.0",
    id: "a-1",
    result: { echo: { x: 1 } },
  });
  assert.deepEqual(await reply('{"jsonrpc":"2.0","id":-7.5,"method":"m"}'), {
    jsonrpc: "2.0",
    id: -7.5,
    result: { echo: null },
  });
});

Deno.test("dispatchLine() echoes numeric ids a double cannot hold as they were sent", async () => {
  const cases = [
    ["12345678901234567890", '{"echo":{"id":1}}'],
    ["-0", '{"echo":null}'],
    ["0.1000000000000000055511151231257827", '{"echo":null}'],
    ["-9007199254740993", '{"echo":null}'],
  ];
  for (const [id, result] of cases) {
    // A nested "id" in params must not be mistaken for the request's.
    const params = result.includes('"id"') ? ',"params":{"id":1}' : "";
    const frame = await dispatchLine(
      { kind: "line", text: `{"jsonrpc":"2.0","id":${id},"method":"m"${params}}` },
      handler(),
    );
    assert.equal(frame, `{"jsonrpc":"2.0","id":${id},"result":${result}}\n`);
  }
  const failed = await dispatchLine(
    { kind: "line", text: '{"params":{"id":2.5},"jsonrpc":"2.0","id":1.25e-7,"method":"bad"}' },
    handler(),
  );
  assert.equal(
    failed,
    '{"jsonrpc":"2.0","id":1.25e-7,"error":{"code":-32602,"message":"Invalid params: x"}}\n',
  );
});

Deno.test("dispatchLine() answers invalid JSON with -32700 and id null", async () => {
  assert.deepEqual(await reply('{"jsonrpc":"2.0","id":1,'), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error" },
  });
});

Deno.test("dispatchLine() rejects batches, non-objects and bad envelopes with -32600", async () => {
  const cases: [string, unknown][] = [
    ['[{"jsonrpc":"2.0","id":1,"method":"m"}]', null],
    ["42", null],
    ['"text"', null],
    ["null", null],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"m"}', null],
    ['{"jsonrpc":"2.0","id":null,"method":"m"}', null],
    ['{"jsonrpc":"1.0","id":3,"method":"m"}', 3],
    ['{"id":4,"method":"m"}', 4],
    ['{"jsonrpc":"2.0","id":5,"method":7}', 5],
    ['{"jsonrpc":"2.0","id":6,"method":"m","params":"p"}', 6],
    ['{"jsonrpc":"2.0","id":7}', 7],
  ];
  for (const [line, id] of cases) {
    const answer = await reply(line) as { id: unknown; error: { code: number } };
    assert.equal(answer.error.code, RPC_ERROR.invalidRequest, line);
    assert.equal(answer.id, id, line);
  }
});

Deno.test("dispatchLine() gives notifications no reply, even when they fail", async () => {
  const calls: string[] = [];
  const target = handler(calls);
  assert.equal(await reply('{"jsonrpc":"2.0","method":"note"}', target), undefined);
  assert.equal(await reply('{"jsonrpc":"2.0","method":"boom"}', target), undefined);
  assert.deepEqual(calls, ["note", "boom"]);
});

Deno.test("dispatchLine() maps RpcError to its code and hides other errors", async () => {
  const logs: string[] = [];
  const target = handler([], logs);
  assert.deepEqual(await reply('{"jsonrpc":"2.0","id":1,"method":"bad"}', target), {
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32602, message: "Invalid params: x" },
  });
  const hidden = await reply('{"jsonrpc":"2.0","id":2,"method":"boom"}', target);
  assert.deepEqual(hidden, {
    jsonrpc: "2.0",
    id: 2,
    error: { code: -32603, message: "Internal error" },
  });
  assert.ok(!JSON.stringify(hidden).includes("secret"));
  assert.ok(logs.some((line) => line.includes("secret stack detail")), "logged for the operator");
  const unserializable = await reply('{"jsonrpc":"2.0","id":3,"method":"bigint"}', target);
  assert.equal((unserializable as { error: { code: number } }).error.code, -32603);
});

Deno.test("dispatchLine() ignores blank lines and responses from the peer", async () => {
  const responses: unknown[] = [];
  const target = { ...handler(), response: (message: unknown) => responses.push(message) };
  assert.equal(await reply("   \r", target), undefined);
  assert.equal(await reply('{"jsonrpc":"2.0","id":9,"result":{}}', target), undefined);
  assert.equal(responses.length, 1);
});

Deno.test("dispatchLine() answers an oversized line through the handler with a peeked id", async () => {
  const frame = await dispatchLine(
    { kind: "oversize", bytes: 2_000_000, prefix: '{"jsonrpc":"2.0","id":"big","method":"m"' },
    handler(),
  );
  assert.deepEqual(JSON.parse(frame!), {
    jsonrpc: "2.0",
    id: "big",
    result: { tooLarge: 2_000_000 },
  });
  const anonymous = await dispatchLine({ kind: "oversize", bytes: 5, prefix: "xxxxx" }, handler());
  assert.equal(JSON.parse(anonymous!).id, null);
});
