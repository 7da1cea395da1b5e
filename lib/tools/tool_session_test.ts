import assert from "node:assert/strict";
import { join } from "node:path";
import type { ToolDescriptor } from "./tool_descriptor.ts";
import { ToolRegistry } from "./tool_registry.ts";
import { ToolSession } from "./tool_session.ts";
import type { ToolTraceEvent } from "./types.ts";

const OPEN_ARGS = { type: "object", properties: {}, additionalProperties: true };

function tool(name: string, run: ToolDescriptor["run"], timeoutMs?: number): ToolDescriptor {
  return {
    name,
    description: name,
    argsSchema: OPEN_ARGS,
    run,
    timeoutMs: timeoutMs ? () => timeoutMs : undefined,
  };
}

async function tempRoot() {
  const root = await Deno.realPath(await Deno.makeTempDir());
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

Deno.test("ToolSession turns a hang, a crash and a refusal into results and keeps going", async () => {
  await using dir = await tempRoot();
  const registry = new ToolRegistry();
  await registry.register(tool("test.hang", () => new Promise(() => {}), 50));
  await registry.register(tool("test.crash", () => {
    throw new TypeError("boom");
  }));
  await registry.register(tool("test.echo", (args) => Promise.resolve(args)));
  using session = await ToolSession.open({ root: dir.root, registry, bubblewrap: "off" });
  const hang = await session.call({ id: "1", tool: "test.hang", args: {} });
  assert.equal(hang.error?.code, "timeout");
  const crash = await session.call({ id: "2", tool: "test.crash", args: {} });
  assert.deepEqual(crash.error, { code: "io_error", message: "The tool failed: boom" });
  const echo = await session.call({ id: "3", tool: "test.echo", args: { a: 1 } });
  assert.deepEqual(echo, { id: "3", tool: "test.echo", ok: true, output: { a: 1 }, error: null });
});

Deno.test("ToolSession runs calls in the order they were made", async () => {
  await using dir = await tempRoot();
  const registry = new ToolRegistry();
  const order: string[] = [];
  await registry.register(tool("test.slow", async (args) => {
    await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
    order.push(String(args.name));
    return null;
  }));
  using session = await ToolSession.open({ root: dir.root, registry, bubblewrap: "off" });
  await Promise.all([
    session.call({ id: "a", tool: "test.slow", args: { ms: 60, name: "a" } }),
    session.call({ id: "b", tool: "test.slow", args: { ms: 1, name: "b" } }),
    session.call({ id: "c", tool: "test.slow", args: { ms: 20, name: "c" } }),
  ]);
  assert.deepEqual(order, ["a", "b", "c"]);
});

Deno.test("ToolSession emits tool_start and tool_done with the event store's fields, secrets masked", async () => {
  await using dir = await tempRoot();
  await Deno.writeTextFile(join(dir.root, "k.txt"), "key sk-test-0123456789abcdefXYZ");
  const events: ToolTraceEvent[] = [];
  using session = await ToolSession.open({
    root: dir.root,
    bubblewrap: "off",
    sessionId: "s-1",
    secrets: ["sk-test-0123456789abcdefXYZ"],
    trace: (event) => void events.push(event),
    now: () => 1_700_000_000_000,
  });
  await session.call({ id: "t1", tool: "fs.read_text", args: { path: "k.txt" } });
  await session.call({ id: "t2", tool: "fs.read_text", args: { path: "../x" } });
  assert.deepEqual(events.map((event) => event.kind), [
    "tool_start",
    "tool_done",
    "tool_start",
    "tool_done",
  ]);
  const done = events[1].data;
  assert.equal(events[1].ts, 1_700_000_000);
  assert.equal(done.session_id, "s-1");
  assert.equal(done.tool_id, "fs.read_text");
  assert.deepEqual(done.input_params, { path: "k.txt" });
  assert.equal(done.outcome, "SUCCESS");
  assert.equal(typeof done.event_id, "string");
  assert.equal(done.event_id, events[0].data.event_id);
  assert.ok(Number.isInteger(done.latency_ms) && (done.latency_ms as number) >= 0);
  assert.equal(done.ts, "2023-11-14T22:13:20.000Z");
  assert.ok(
    !JSON.stringify(events).includes("sk-test-0123456789abcdefXYZ"),
    "the secret reached a trace",
  );
  assert.equal(events[3].data.outcome, "FAILURE");
  assert.equal(events[3].data.error_code, "path_escape");
});

Deno.test("ToolSession reuses its warm sandbox until the capabilities change", async () => {
  await using dir = await tempRoot();
  const seen: unknown[] = [];
  const registry = new ToolRegistry();
  await registry.register(tool("test.sandbox", (_args, context) => {
    seen.push(context.sandbox);
    return Promise.resolve(null);
  }));
  using session = await ToolSession.open({ root: dir.root, registry, bubblewrap: "off" });
  await session.call({ id: "1", tool: "test.sandbox", args: {} });
  await session.call({ id: "2", tool: "test.sandbox", args: {} });
  assert.equal(seen[0], seen[1]);
  session.grant("net:example.com");
  await session.call({ id: "3", tool: "test.sandbox", args: {} });
  assert.notEqual(seen[2], seen[1]);
  session.revoke("net:example.com");
  assert.deepEqual(session.capabilities.capabilities_granted, []);
});

Deno.test("ToolSession.open() refuses a missing root, a file and /", async () => {
  await using dir = await tempRoot();
  await Deno.writeTextFile(join(dir.root, "f"), "");
  for (const root of [join(dir.root, "missing"), join(dir.root, "f"), "/"]) {
    await assert.rejects(ToolSession.open({ root, bubblewrap: "off" }), /sandbox root/i);
  }
});
