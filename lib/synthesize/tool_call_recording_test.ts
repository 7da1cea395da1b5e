import assert from "node:assert/strict";
import { baselineRegistry } from "../tools/mod.ts";
import { openEventStore } from "./open_event_store.ts";
import { openToolCallRecording, toolRegistryWithComposites } from "./tool_call_recording.ts";

Deno.test("openToolCallRecording() stores each answered call with its outcome, secrets masked, on dispose", async () => {
  const dir = await Deno.makeTempDir();
  try {
    {
      await using recording = await openToolCallRecording(dir, { secrets: ["hunter2"] });
      assert.match(recording.location, /^sqlite .*events\.sqlite$/);
      const call = { startedMs: 1_700_000_000_000, latencyMs: 4, sessionId: "s1" };
      recording.record({
        ...call,
        tool: "fs.read_text",
        args: { path: "a.txt", note: "hunter2" },
        result: { id: "c1", tool: "fs.read_text", ok: true, output: { text: "hi" }, error: null },
      });
      recording.record({
        ...call,
        tool: "shell.exec",
        args: { argv: ["sleep", "9"] },
        result: {
          id: "c2",
          tool: "shell.exec",
          ok: false,
          output: null,
          error: { code: "timeout", message: "took too long" },
        },
      });
    }
    await using store = await openEventStore(dir, undefined);
    const sessions = [];
    for await (const session of store.scanSessions()) sessions.push(session);
    assert.equal(sessions.length, 1);
    const [read, exec] = sessions[0].events;
    assert.equal(read.tool_id, "fs.read_text");
    assert.equal(read.outcome, "SUCCESS");
    assert.match(read.output_summary ?? "", /"text":"hi"/);
    assert.ok(!JSON.stringify(read.input_params).includes("hunter2"), "a secret was stored");
    assert.equal(exec.outcome, "TIMEOUT");
    assert.match(exec.output_summary ?? "", /took too long/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toolRegistryWithComposites() without a state folder is the baseline registry", async () => {
  const names = (await toolRegistryWithComposites(undefined)).list().map((tool) => tool.name);
  assert.deepEqual(names, (await baselineRegistry()).list().map((tool) => tool.name));
  const dir = await Deno.makeTempDir();
  try {
    const leftOut: string[] = [];
    const registry = await toolRegistryWithComposites(dir, {
      onLeftOut: (toolId) => void leftOut.push(toolId),
    });
    assert.equal(registry.list().length, names.length);
    assert.deepEqual(leftOut, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
