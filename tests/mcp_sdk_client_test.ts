/**
 * End to end with the official MCP SDK client (v2): over stdio (spawning `deno run
 * main.ts mcp-serve --stdio`), over TCP and over a Unix socket, in both protocol eras
 * (the `initialize` handshake and the 2026-07-28 `server/discover` opening).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createValidatorHandler, startValidatorServer } from "../lib/mcp/mod.ts";
import { connectionFromConn } from "../lib/rpc/mod.ts";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";
import { SOCKET_TESTS } from "./fakes/socket_tests.ts";
import { newService } from "./mcp_channels.ts";
import { NdjsonClientTransport } from "./mcp_sdk_transport.ts";

type Era = "legacy" | "modern";

function newClient(era: Era): Client {
  return new Client(
    { name: "syn-test-client", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
}

const TOOL_NAMES = [
  "diff_assets",
  "get_example",
  "get_schema",
  "list_examples",
  "list_schemas",
  "populate_backend",
  "validate_asset",
];

async function exercise(client: Client, era: Era): Promise<void> {
  assert.equal(client.getServerVersion()?.name, "syn");
  if (era === "modern") assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  else assert.notEqual(client.getNegotiatedProtocolVersion(), "2026-07-28");

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(tool.outputSchema?.type, "object", tool.name);
  }

  const valid = await client.callTool({
    name: "validate_asset",
    arguments: { asset: { name: "ok" }, schema: "synesthetic-asset" },
  });
  assert.equal(valid.isError, false);
  assert.deepEqual(valid.structuredContent, { ok: true, errors: [] });
  const text = (valid.content as { type: string; text: string }[])[0];
  assert.equal(text.type, "text");
  assert.deepEqual(JSON.parse(text.text), { ok: true, errors: [] });

  const invalid = await client.callTool({
    name: "validate_asset",
    arguments: { asset: { name: 5 }, schema: "synesthetic-asset" },
  });
  assert.equal(invalid.isError, true);
  assert.equal((invalid.structuredContent as { reason: string }).reason, "validation_failed");
  // Any JSON value is accepted as an asset, and judged by the schema, not by the SDK.
  const notAnObject = await client.callTool({
    name: "validate_asset",
    arguments: { asset: "text", schema: "synesthetic-asset" },
  });
  assert.equal(notAnObject.isError, true);
  assert.deepEqual(
    (notAnObject.structuredContent as { errors: { path: string }[] }).errors.map((e) => e.path),
    [""],
  );

  const patch = await client.callTool({
    name: "diff_assets",
    arguments: { base: { a: 1 }, new: { a: 1, b: 2 } },
  });
  assert.deepEqual(patch.structuredContent, {
    ok: true,
    patch: [{ op: "add", path: "/b", value: 2 }],
  });

  const { resources } = await client.listResources();
  assert.ok(resources.some((resource) => resource.uri === "syn://schemas/synesthetic-asset"));
  const example = resources.find((resource) => resource.uri.startsWith("syn://examples/"));
  assert.ok(example, "examples are resources");
  const schema = await client.readResource({ uri: "syn://schemas/synesthetic-asset" });
  const schemaText = (schema.contents[0] as { text: string }).text;
  assert.equal(JSON.parse(schemaText).type, "object");
  const exampleRead = await client.readResource({ uri: example.uri });
  assert.equal(typeof JSON.parse((exampleRead.contents[0] as { text: string }).text), "object");
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate).sort(), [
    "syn://examples/{path}",
    "syn://schemas/{name}",
  ]);
  await assert.rejects(client.readResource({ uri: "syn://schemas/no-such-schema" }));
  if (era === "legacy") await client.ping();
}

for (const era of ["legacy", "modern"] as Era[]) {
  Deno.test({
    name: `SDK client over stdio (${era} era) uses every tool and resource`,
  }, async () => {
    const readyDir = await Deno.makeTempDir({ prefix: "syn_mcp_sdk_" });
    const transport = new StdioClientTransport({
      command: SELF_COMMAND[0],
      args: [...SELF_COMMAND.slice(1), "mcp-serve", "--stdio"],
      // The SDK's default environment has no DENO_DIR: the child would look for npm
      // packages in another cache and, offline, end as a bare "Connection closed".
      env: childEnv({ MCP_READY_FILE: `${readyDir}/ready` }),
      stderr: "pipe",
    });
    const stderr = collectStream(transport.stderr);
    const client = newClient(era);
    try {
      await client.connect(transport);
      await exercise(client, era);
    } catch (error) {
      throw new Error(`mcp-serve --stdio failed; its stderr:\n${stderr.text()}`, { cause: error });
    } finally {
      await client.close();
      await Deno.remove(readyDir, { recursive: true });
    }
  });

  for (const kind of ["tcp", "socket"] as const) {
    Deno.test({
      name: `SDK client over ${kind} (${era} era) uses every tool and resource`,
      ignore: kind === "socket" && SOCKET_TESTS.ignore,
    }, async () => {
      const service = await newService();
      const dir = kind === "socket" ? await Deno.makeTempDir({ prefix: "syn_mcp_sdk_" }) : "";
      const server = await startValidatorServer(
        kind === "tcp"
          ? { mode: "tcp", hostname: "127.0.0.1", port: 0 }
          : { mode: "socket", path: `${dir}/mcp.sock` },
        () => createValidatorHandler(service),
      );
      const conn = kind === "tcp"
        ? await Deno.connect({ hostname: "127.0.0.1", port: Number(server.address.split(":")[1]) })
        : await Deno.connect({ transport: "unix", path: server.address });
      const client = newClient(era);
      try {
        await client.connect(new NdjsonClientTransport(connectionFromConn(conn)));
        await exercise(client, era);
      } finally {
        await client.close();
        await server.shutdown();
        if (dir) await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
