/**
 * Fuzz: thousands of malformed, truncated, oversized and binary lines mixed with real
 * requests. The server must stay up and answer every request line exactly once, in
 * order (blank lines and notifications get no reply).
 */
import assert from "node:assert/strict";
import { startHarness, type TransportName } from "./mcp_channels.ts";
import { seededRandom as random } from "./fakes/random.ts";

interface Case {
  bytes: Uint8Array;
  /** The reply id expected, `null` for an id-less error, `undefined` for no reply. */
  expect: string | number | null | undefined;
}

const encoder = new TextEncoder();

function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 32 || byte === 9 || byte === 13);
}

function fuzzCases(count: number, seed: number): Case[] {
  const next = random(seed);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const cases: Case[] = [];
  for (let index = 0; index < count; index++) {
    const id = next() < 0.5 ? index : `r${index}`;
    const request = pick([
      { jsonrpc: "2.0", id, method: "list_schemas" },
      {
        jsonrpc: "2.0",
        id,
        method: "get_schema",
        params: { name: pick(["tone", "nope", "shader"]) },
      },
      {
        jsonrpc: "2.0",
        id,
        method: "validate_asset",
        params: {
          asset: { name: `a${index}`, tone: pick([{}, 1, null]) },
          schema: "synesthetic-asset",
        },
      },
      {
        jsonrpc: "2.0",
        id,
        method: "diff_assets",
        params: { base: { a: index }, new: { b: [index] } },
      },
    ]);
    const text = JSON.stringify(request);
    const roll = next();
    let bytes: Uint8Array;
    let expect: Case["expect"];
    if (roll < 0.3) {
      bytes = encoder.encode(text);
      expect = id;
    } else if (roll < 0.5) {
      bytes = encoder.encode(text.slice(0, Math.floor(next() * text.length)));
      expect = null;
    } else if (roll < 0.7) {
      bytes = new Uint8Array(1 + Math.floor(next() * 200));
      for (let at = 0; at < bytes.length; at++) {
        let byte = Math.floor(next() * 256);
        if (byte === 10) byte = 11;
        bytes[at] = byte;
      }
      expect = null;
    } else if (roll < 0.8) {
      bytes = encoder.encode(
        pick([
          "[]",
          "[1,2]",
          "null",
          "true",
          '"x"',
          "3.5",
          "{}",
          '{"jsonrpc":"2.0"}',
          "[" + text + "]",
        ]),
      );
      expect = null;
    } else if (roll < 0.87) {
      const { id: _drop, ...notification } = request;
      bytes = encoder.encode(JSON.stringify(notification));
      expect = undefined;
    } else if (roll < 0.9) {
      bytes = encoder.encode(pick(["", "  ", "\t\r"]));
      expect = undefined;
    } else if (roll < 0.998) {
      // Valid JSON, wrong envelope: echo the id when it is a valid one.
      const broken = pick([
        { ...request, jsonrpc: "1.0" },
        { ...request, method: 12 },
        { ...request, params: "text" },
        { ...request, method: "no_such_method" },
        { ...request, params: { name: 5, asset: undefined, base: undefined } },
        // MCP methods with the direct dialect's params, or none that parse: the SDK would
        // drop those unanswered, so the bridge must answer them itself.
        { ...request, method: pick(["tools/call", "resources/read", "tools/list", "ping"]) },
        { ...request, method: pick(["tools/call", "initialize"]), params: [index] },
      ]);
      bytes = encoder.encode(JSON.stringify(broken));
      expect = id;
    } else {
      // Oversized: over 1 MiB, with the id at the front (the server may peek it).
      const filler = "f".repeat(1024 * 1024 + Math.floor(next() * 4096));
      bytes = encoder.encode(
        `{"jsonrpc":"2.0","id":${
          JSON.stringify(id)
        },"method":"validate_asset","params":{"x":"${filler}"}}`,
      );
      expect = id;
    }
    if (isBlank(bytes)) expect = undefined;
    cases.push({ bytes, expect });
  }
  return cases;
}

for (const transport of ["memory", "stdio"] as TransportName[]) {
  Deno.test(`fuzz: 6,000 hostile lines over ${transport}, every request answered once, in order`, async () => {
    const cases = fuzzCases(6_000, transport === "memory" ? 1234 : 98765);
    const expected = cases.filter((item) => item.expect !== undefined).map((item) => item.expect);
    assert.ok(
      cases.filter((item) => item.bytes.length > 1024 * 1024).length >= 3,
      "some oversized",
    );
    const harness = await startHarness(transport);
    const channel = await harness.open();
    try {
      const writing = (async () => {
        for (let start = 0; start < cases.length; start += 200) {
          const parts = cases.slice(start, start + 200).flatMap((
            item,
          ) => [item.bytes, encoder.encode("\n")]);
          const total = parts.reduce((sum, part) => sum + part.length, 0);
          const chunk = new Uint8Array(total);
          let offset = 0;
          for (const part of parts) {
            chunk.set(part, offset);
            offset += part.length;
          }
          await channel.send(chunk);
        }
      })();
      const ids: unknown[] = [];
      for (let index = 0; index < expected.length; index++) {
        const reply = JSON.parse(await channel.readLine());
        assert.equal(reply.jsonrpc, "2.0");
        assert.ok(("result" in reply) !== ("error" in reply), "exactly one of result and error");
        ids.push(reply.id);
      }
      await writing;
      assert.deepEqual(ids, expected);
      const alive = await channel.request({ jsonrpc: "2.0", id: "alive", method: "list_schemas" });
      assert.equal(alive.id, "alive");
    } finally {
      channel.close();
      await harness.stop();
    }
  });
}
