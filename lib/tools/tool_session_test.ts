import assert from "node:assert/strict";
import { join } from "node:path";
import type { ToolDescriptor } from "./tool_descriptor.ts";
import { ToolRegistry } from "./tool_registry.ts";
import { ToolSession } from "./tool_session.ts";
import { baselineRegistry } from "./baseline_tools.ts";
import type { Sandbox } from "./sandbox.ts";
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

/** A `bwrap` that notes each run in `marker` and fails (so the session runs without it). */
async function countingBwrap(folder: string, marker: string): Promise<void> {
  const script = join(folder, "bwrap");
  await Deno.writeTextFile(script, `#!/bin/sh\necho probed >> '${marker}'\nexit 1\n`);
  await Deno.chmod(script, 0o755);
}

const SPAWN_ECHO = {
  argv: ["/bin/echo", "hi"],
  cwd: "/",
  env: {},
  timeoutMs: 5_000,
  maxOutputBytes: 100,
};

Deno.test("ToolSession: a tool that starts no program gets no run permission and no bubblewrap probe", async () => {
  await using dir = await tempRoot();
  await using bin = await tempRoot();
  const marker = join(bin.root, "probes.log");
  await countingBwrap(bin.root, marker);
  const registry = await baselineRegistry();
  const sandboxes: Sandbox[] = [];
  await registry.register({
    ...tool("test.quiet", async (_args, context) => {
      sandboxes.push(context.sandbox);
      await context.sandbox.request("spawn", { ...SPAWN_ECHO, cwd: dir.root }, {
        timeoutMs: 5_000,
      });
      return "spawned";
    }),
    startsPrograms: false,
  });
  using session = await ToolSession.open({
    root: dir.root,
    registry,
    bubblewrapSearchPath: bin.root,
    shellWithoutBubblewrap: true,
  });
  await Deno.writeTextFile(join(dir.root, "a.txt"), "a");
  const read = await session.call({ id: "1", tool: "fs.read_text", args: { path: "a.txt" } });
  assert.equal(read.ok, true, JSON.stringify(read));
  const quiet = await session.call({ id: "2", tool: "test.quiet", args: {} });
  assert.equal(quiet.error?.code, "not_allowed", JSON.stringify(quiet));
  assert.equal(sandboxes[0].runsPrograms, false);
  assert.equal(await exists(marker), false, "bubblewrap was probed for calls that start nothing");

  const echo = await session.call({ id: "3", tool: "shell.exec", args: { cmd: "echo hi" } });
  assert.equal(echo.ok, true, JSON.stringify(echo));
  assert.equal((echo.output as { isolation: string }).isolation, "argv");
  assert.equal((await Deno.readTextFile(marker)).trim(), "probed", "probed exactly once");
  assert.equal(sandboxes[0].dead, true, "the narrow sandbox ends once the wider one serves");

  // From here on the wider sandbox serves every call; the probe is not run again.
  await session.call({ id: "4", tool: "test.quiet", args: {} });
  assert.equal(sandboxes[1].runsPrograms, true);
  await session.call({ id: "5", tool: "shell.exec", args: { cmd: "echo hi" } });
  assert.equal((await Deno.readTextFile(marker)).trim(), "probed");
});

Deno.test("ToolSession: steps made together share one sandbox start; a replaced one ends after its calls", async () => {
  await using dir = await tempRoot();
  const registry = new ToolRegistry();
  const seen: Sandbox[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const until = async (count: number) => {
    while (seen.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await registry.register({
    ...tool("test.hold", async (_args, context) => {
      seen.push(context.sandbox);
      await held;
      const listing = { root: dir.root, path: dir.root, maxEntries: 10, scanCap: 10 };
      return await context.sandbox.request("list_dir", listing, { timeoutMs: 5_000 });
    }),
    startsPrograms: false,
  });
  const opened: { session?: ToolSession } = {};
  await registry.register({
    ...tool("test.steps", async (_args, context) => {
      // Two steps at once, after the permissions changed: one new sandbox for both.
      opened.session!.grant("net:a.example");
      const pair = [context.callTool!("test.hold", {}), context.callTool!("test.hold", {})];
      await until(2);
      // Another change while both still run in it: a third sandbox for the next step.
      opened.session!.grant("net:b.example");
      const third = context.callTool!("test.hold", {});
      await until(3);
      release();
      return await Promise.all([...pair, third]);
    }),
    startsPrograms: false,
  });
  using session = await ToolSession.open({ root: dir.root, registry, bubblewrap: "off" });
  opened.session = session;
  const result = await session.call({ id: "1", tool: "test.steps", args: {} });
  assert.equal(result.ok, true, JSON.stringify(result));
  for (const step of result.output as { ok: boolean }[]) {
    assert.equal(step.ok, true, `a step failed: ${JSON.stringify(step)}`);
  }
  assert.equal(seen[0], seen[1], "two steps at once started two sandboxes");
  assert.notEqual(seen[2], seen[0]);
  assert.equal(seen[0].dead, true, "the replaced sandbox ended after its calls");
  assert.equal(seen[2].dead, false);
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Worker threads of this process (Deno names them `worker-N`). */
function workerThreads(): number {
  let count = 0;
  for (const task of Deno.readDirSync("/proc/self/task")) {
    try {
      if (Deno.readTextFileSync(`/proc/self/task/${task.name}/comm`).startsWith("worker-")) count++;
    } catch {
      // ended while looked at
    }
  }
  return count;
}

/** Waits (at most 5 s) until this process runs `count` worker threads. */
async function settlesAt(count: number): Promise<number> {
  for (let turn = 0; turn < 500 && workerThreads() !== count; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return workerThreads();
}

Deno.test("ToolSession.open() with firstTool starts the sandbox a first read uses; closed early, it leaves no worker", async () => {
  await using dir = await tempRoot();
  await Deno.writeTextFile(join(dir.root, "a.txt"), "alpha");
  assert.equal(await settlesAt(0), 0, "workers of earlier tests still run");
  const session = await ToolSession.open({
    root: dir.root,
    bubblewrap: "off",
    firstTool: "fs.read_text",
  });
  assert.equal(workerThreads(), 1, "the sandbox did not start as the session opened");
  const read = await session.call({ id: "1", tool: "fs.read_text", args: { path: "a.txt" } });
  assert.equal(read.ok, true, JSON.stringify(read));
  assert.equal((read.output as { text: string }).text, "alpha");
  assert.equal(workerThreads(), 1, "the first call started a second sandbox");
  session.close();
  assert.equal(await settlesAt(0), 0);
  // A tool that starts programs gets its sandbox (and the bubblewrap probe) at its call.
  const shell = await ToolSession.open({
    root: dir.root,
    bubblewrap: "off",
    firstTool: "shell.exec",
  });
  assert.equal(workerThreads(), 0);
  shell.close();
  // Closed before its sandbox is even ready: the worker ends all the same.
  const early = await ToolSession.open({
    root: dir.root,
    bubblewrap: "off",
    firstTool: "fs.list_dir",
  });
  early.close();
  assert.equal(await settlesAt(0), 0);
});
