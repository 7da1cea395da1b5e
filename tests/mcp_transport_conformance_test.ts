/**
 * One conformance suite for the validator service, run over every transport: in-memory,
 * stdio (a `deno run main.ts mcp-serve --stdio` child), TCP and a Unix socket (gated by
 * `LABS_SOCKET_TESTS`, see `fakes/socket_tests.ts`).
 */
import assert from "node:assert/strict";
import { validatorClientFromConnection } from "../lib/mcp/mod.ts";
import { SOCKET_TESTS } from "./fakes/socket_tests.ts";
import { startHarness, type TransportName } from "./mcp_channels.ts";

const TRANSPORTS: TransportName[] = ["memory", "stdio", "tcp", "socket"];
const MIB = 1024 * 1024;

for (const transport of TRANSPORTS) {
  Deno.test({
    name: `validator service conformance over ${transport}`,
    ignore: transport === "socket" && SOCKET_TESTS.ignore,
  }, async (t) => {
    const harness = await startHarness(transport);
    const channel = await harness.open();
    try {
      await t.step("every frame has jsonrpc 2.0 and the id echoed exactly", async () => {
        for (const id of [1, "b", 0, -3, 1.5, "", "ünï ✓"]) {
          const reply = await channel.request({ jsonrpc: "2.0", id, method: "list_schemas" });
          assert.equal(reply.jsonrpc, "2.0");
          assert.equal(reply.id, id);
          const result = reply.result as { ok: boolean; schemas: { name: string }[] };
          assert.equal(result.ok, true);
          assert.ok(result.schemas.some((schema) => schema.name === "synesthetic-asset"));
        }
        // Numbers a double cannot hold come back as sent, on the direct dialect and on MCP.
        for (const [id, method] of [["12345678901234567890", "list_schemas"], ["-5e-1", "ping"]]) {
          await channel.send(`{"jsonrpc":"2.0","id":${id},"method":"${method}"}\n`);
          const line = await channel.readLine();
          assert.ok(line.startsWith(`{"jsonrpc":"2.0","id":${id},"result":{`), line.slice(0, 80));
        }
      });

      await t.step("the spec's tools answer with the spec's shapes", async () => {
        const missing = await channel.request({
          jsonrpc: "2.0",
          id: "b",
          method: "get_schema",
          params: { name: "nope" },
        });
        assert.deepEqual(missing, {
          jsonrpc: "2.0",
          id: "b",
          result: { ok: false, reason: "not_found" },
        });
        const invalid = await channel.request({
          jsonrpc: "2.0",
          id: 5,
          method: "validate_asset",
          params: { asset: { name: "x", shader: { name: "s" } }, schema: "synesthetic-asset" },
        });
        const result = invalid.result as {
          ok: boolean;
          reason: string;
          errors: { path: string }[];
        };
        assert.equal(result.ok, false);
        assert.equal(result.reason, "validation_failed");
        assert.ok(result.errors.every((error) => error.path.startsWith("/shader")));
        const patch = await channel.request({
          jsonrpc: "2.0",
          id: 6,
          method: "diff_assets",
          params: { base: { a: 1 }, new: { a: 2 } },
        });
        assert.deepEqual(patch.result, {
          ok: true,
          patch: [{ op: "replace", path: "/a", value: 2 }],
        });
        const disabled = await channel.request({
          jsonrpc: "2.0",
          id: 7,
          method: "populate_backend",
          params: { asset: { name: "x" } },
        });
        assert.deepEqual(disabled.result, {
          ok: false,
          reason: "unsupported",
          detail: "backend disabled",
        });
      });

      await t.step("protocol errors carry the JSON-RPC codes", async () => {
        await channel.send("not json\n");
        assert.deepEqual(JSON.parse(await channel.readLine()), {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error" },
        });
        await channel.send('[{"jsonrpc":"2.0","id":1,"method":"list_schemas"}]\n');
        assert.equal(JSON.parse(await channel.readLine()).error.code, -32600);
        await channel.send("17\n");
        assert.equal(JSON.parse(await channel.readLine()).error.code, -32600);
        // An unknown direct-dialect method is the adapter spec's `unsupported` result (§6);
        // JSON-RPC -32601 is for MCP methods the server does not know.
        const unknown = await channel.request({ jsonrpc: "2.0", id: 8, method: "nope" });
        assert.deepEqual(unknown, {
          jsonrpc: "2.0",
          id: 8,
          result: { ok: false, reason: "unsupported", detail: "tool not implemented" },
        });
        const unknownMcp = await channel.request({ jsonrpc: "2.0", id: 10, method: "nope/nope" });
        assert.equal((unknownMcp.error as { code: number }).code, -32601);
        assert.equal(unknownMcp.id, 10);
        const badParams = await channel.request({
          jsonrpc: "2.0",
          id: 9,
          method: "get_schema",
          params: { name: 42 },
        });
        assert.equal((badParams.error as { code: number }).code, -32602);
        // The SDK drops MCP requests it cannot parse: they are answered here instead.
        for (const params of [[1], { _meta: "x" }]) {
          const mcp = await channel.request({
            jsonrpc: "2.0",
            id: "m",
            method: "tools/list",
            params,
          });
          assert.equal((mcp.error as { code: number }).code, -32602, JSON.stringify(params));
        }
      });

      await t.step("notifications get no reply", async () => {
        await channel.send('{"jsonrpc":"2.0","method":"list_schemas"}\n');
        await channel.send('{"jsonrpc":"2.0","method":"nope"}\n');
        const reply = await channel.request({
          jsonrpc: "2.0",
          id: "after",
          method: "get_schema",
          params: { name: "x" },
        });
        assert.equal(reply.id, "after");
      });

      await t.step("a line over 1 MiB is rejected unread and the connection goes on", async () => {
        const filler = "x".repeat(MIB);
        await channel.send(
          `{"jsonrpc":"2.0","id":"big","method":"validate_asset","params":{"asset":{"name":"${filler}"},"schema":"synesthetic-asset"}}\n`,
        );
        assert.deepEqual(JSON.parse(await channel.readLine()), {
          jsonrpc: "2.0",
          id: "big",
          result: {
            ok: false,
            reason: "validation_failed",
            errors: [{ path: "", msg: "payload_too_large" }],
          },
        });
        await channel.send(`[${"1,".repeat(MIB / 2)}1]\n`);
        assert.equal(JSON.parse(await channel.readLine()).id, null);
        // Exactly at the cap is accepted (here it is parsed and found to be a bad request).
        const exact = `{"pad":"${"p".repeat(MIB - 10)}"}`;
        assert.equal(new TextEncoder().encode(exact).length, MIB);
        await channel.send(exact + "\n");
        assert.equal(JSON.parse(await channel.readLine()).error.code, -32600);
        const after = await channel.request({ jsonrpc: "2.0", id: "next", method: "list_schemas" });
        assert.equal((after.result as { ok: boolean }).ok, true);
      });

      await t.step("pipelined requests are answered once each, in request order", async () => {
        const lines: string[] = [];
        for (let index = 0; index < 60; index++) {
          lines.push(
            index % 3 === 0
              ? JSON.stringify({ jsonrpc: "2.0", id: index, method: "list_examples", params: {} })
              : index % 3 === 1
              ? JSON.stringify({
                jsonrpc: "2.0",
                id: index,
                method: "validate_asset",
                params: { asset: { name: `a${index}` }, schema: "synesthetic-asset" },
              })
              : `{"jsonrpc":"2.0","id":${index},`,
          );
        }
        await channel.send(lines.join("\n") + "\n");
        for (let index = 0; index < 60; index++) {
          const reply = JSON.parse(await channel.readLine());
          assert.equal(reply.id, index % 3 === 2 ? null : index);
        }
      });

      await t.step("the validator client works over this transport", async () => {
        const client = validatorClientFromConnection(await harness.connect(), {
          transport: transport,
        });
        assert.deepEqual(await client.validateAsset({ name: "ok-asset" }, "synesthetic-asset"), {
          ok: true,
          errors: [],
        });
        const verdict = await client.validateAsset({ name: 1 });
        assert.equal(verdict.ok, false);
        assert.equal(verdict.reason, "validation_failed");
        const tooLarge = await client.validateAsset({ name: "x".repeat(MIB) });
        assert.equal(tooLarge.ok, false);
        assert.deepEqual(tooLarge.errors, [{ path: "", msg: "payload_too_large" }]);
        assert.match(tooLarge.detail ?? "", /limit is 1048576/);
        await client.close();
      });
    } finally {
      channel.close();
      await harness.stop();
    }
  });
}

for (const transport of ["tcp", "socket"] as const) {
  Deno.test({
    name: `${transport} serves many clients at once, each in its own order`,
    ignore: transport === "socket" && SOCKET_TESTS.ignore,
  }, async () => {
    const harness = await startHarness(transport);
    const channels = await Promise.all(Array.from({ length: 6 }, () => harness.open()));
    try {
      await Promise.all(channels.map(async (channel, client) => {
        const batch = Array.from({ length: 40 }, (_, index) =>
          JSON.stringify({
            jsonrpc: "2.0",
            id: `${client}-${index}`,
            method: index % 2 ? "list_schemas" : "validate_asset",
            params: index % 2 ? {} : { asset: { name: `n${index}` }, schema: "synesthetic-asset" },
          })).join("\n") + "\n";
        await channel.send(batch);
        for (let index = 0; index < 40; index++) {
          assert.equal(JSON.parse(await channel.readLine()).id, `${client}-${index}`);
        }
      }));
    } finally {
      for (const channel of channels) channel.close();
      await harness.stop();
    }
  });
}
