/**
 * `syn mcp-proxy` serving its clients over Streamable HTTP with `--http`: behind the edge
 * (bearer token), one upstream connection per MCP session, calls recorded under the MCP
 * session id.
 */
import assert from "node:assert/strict";
import { openEventStore, type StoredToolEvent } from "../lib/synthesize/mod.ts";
import { connectHttpClient, spawnHttpServer } from "./fakes/mcp_http_child.ts";

const FAKE = new URL("./fakes/fake_mcp_records.ts", import.meta.url).pathname;

async function eventsOf(stateDir: string): Promise<Map<string, StoredToolEvent[]>> {
  await using store = await openEventStore(stateDir, () => undefined);
  const bySession = new Map<string, StoredToolEvent[]>();
  for (const session of await store.getSessions()) {
    bySession.set(session.session_id, await store.getBySession(session.session_id));
  }
  return bySession;
}

Deno.test({
  name:
    "mcp-proxy --http: the token is required; each MCP session is served and recorded under its own id",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_http_" });
  const dataFile = `${dir}/data.json`;
  await Deno.writeTextFile(
    dataFile,
    JSON.stringify({
      records: { alice: { id: "r0", owner: "r0" }, bob: { id: "r1", owner: "r1" } },
      bodies: {},
    }),
  );
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--state-dir",
      `${dir}/state`,
      "--",
      Deno.execPath(),
      "run",
      "-A",
      FAKE,
      dataFile,
    ],
    { command: "mcp-proxy" },
  );
  try {
    assert.ok(proxy.token, proxy.stderr());
    const refused = await fetch(proxy.url, { method: "POST", body: "{}" });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const sessions: string[] = [];
    for (const name of ["alice", "bob"]) {
      const { client, transport } = await connectHttpClient(proxy.url, proxy.token);
      try {
        assert.equal(client.getServerVersion()?.name, "fake-records");
        const found = await client.callTool({ name: "find_record", arguments: { name } });
        assert.deepEqual(found.structuredContent, {
          id: name === "alice" ? "r0" : "r1",
          owner: name === "alice" ? "r0" : "r1",
        });
        sessions.push(transport.sessionId!);
      } catch (error) {
        throw new Error(`stderr of mcp-proxy --http:\n${proxy.stderr()}`, { cause: error });
      } finally {
        await client.close();
      }
    }
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    const recorded = await eventsOf(`${dir}/state`);
    assert.deepEqual([...recorded.keys()].sort(), [...sessions].sort());
    for (const [index, name] of ["alice", "bob"].entries()) {
      const events = recorded.get(sessions[index])!;
      assert.deepEqual(events.map((event) => [event.tool_id, event.input_params]), [
        ["find_record", { name }],
      ]);
    }
  } finally {
    await proxy.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
