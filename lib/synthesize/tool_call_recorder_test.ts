import assert from "node:assert/strict";
import { join } from "node:path";
import type { EventStore } from "./event_store.ts";
import { OUTPUT_SUMMARY_CHARS } from "../tools/mod.ts";
import { MAX_PENDING_EVENTS, RECORDER_BATCH_SIZE } from "./tool_call_recorder.ts";
import { ToolCallRecorder } from "./mod.ts";
import { openSqliteEventStore } from "./sqlite_event_store.ts";

const SECRET = "sk-test-0123456789abcdef";

async function withStore(body: (store: EventStore) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "syn_recorder_" });
  const store = openSqliteEventStore(join(dir, "state"));
  try {
    await body(store);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("ToolCallRecorder stores one event per call, secrets masked, output summarized", async () => {
  await withStore(async (store) => {
    const recorder = new ToolCallRecorder(store, { secrets: [SECRET], flushMs: 10_000 });
    recorder.record({
      tool: "http.get",
      args: {
        url: `https://example.com/?key=${SECRET}`,
        headers: { authorization: "x" },
        api_key: "k",
      },
      output: { structured: { status: 200, body: `echo ${SECRET}` } },
      outcome: "SUCCESS",
      startedMs: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
      latencyMs: 12.6,
      sessionId: "s1",
    });
    recorder.record({
      tool: "fs.read_text",
      args: { path: "big.txt" },
      output: { text: "y".repeat(2 * OUTPUT_SUMMARY_CHARS) },
      outcome: "TIMEOUT",
      startedMs: Date.UTC(2026, 0, 2, 3, 4, 6),
      latencyMs: 5,
      sessionId: "s1",
    });
    // Batched: nothing is written before the flush.
    assert.deepEqual(await store.stats(), { events: 0, sessions: 0 });
    await recorder.close();
    const events = await store.getBySession("s1");
    assert.equal(events.length, 2);
    const [first, second] = events;
    assert.equal(first.tool_id, "http.get");
    assert.equal(first.outcome, "SUCCESS");
    assert.equal(first.latency_ms, 13);
    assert.equal(first.ts, "2026-01-02T03:04:05.006Z");
    assert.doesNotMatch(JSON.stringify(first.input_params), new RegExp(SECRET));
    assert.equal(
      (first.input_params.headers as Record<string, string>).authorization,
      "***redacted***",
    );
    assert.equal(first.input_params.api_key, "***redacted***");
    assert.doesNotMatch(first.output_summary!, new RegExp(SECRET));
    assert.match(first.output_summary!, /^\{"status":200,"body":"echo /);
    assert.equal(second.outcome, "TIMEOUT");
    assert.equal(second.output_summary, `${"y".repeat(OUTPUT_SUMMARY_CHARS)}…`);
  });
});

Deno.test("ToolCallRecorder appends a full batch at once and gives calls without a session its own id", async () => {
  await withStore(async (store) => {
    const recorder = new ToolCallRecorder(store, { flushMs: 60_000, sessionId: () => "conn-1" });
    for (let index = 0; index < RECORDER_BATCH_SIZE; index++) {
      recorder.record({
        tool: "fs.list_dir",
        args: { path: `d${index}` },
        outcome: "FAILURE",
        startedMs: 1_000 + index,
        latencyMs: 1,
      });
    }
    // The batch went out without waiting for the (one minute) timer.
    await recorder.flush();
    assert.deepEqual(await store.stats(), { events: RECORDER_BATCH_SIZE, sessions: 1 });
    const events = await store.getBySession("conn-1");
    assert.equal(events[0].output_summary, null);
    assert.deepEqual(events.map((event) => event.input_params.path).slice(0, 2), ["d0", "d1"]);
    await recorder.close();
  });
});

Deno.test("ToolCallRecorder never throws into the caller and reports each kind of failure once", async () => {
  const lines: string[] = [];
  let appends = 0;
  const broken = {
    location: "broken",
    append() {
      appends++;
      return Promise.reject(new Error("database or disk is full"));
    },
  } as unknown as EventStore;
  const recorder = new ToolCallRecorder(broken, { onError: (line) => lines.push(line) });
  const call = {
    tool: "fs.read_text",
    args: {},
    outcome: "SUCCESS" as const,
    startedMs: 1_000,
    latencyMs: 1,
    sessionId: "s",
  };
  recorder.record(call);
  await recorder.flush();
  recorder.record(call);
  await recorder.flush();
  // A tool name that is not an identifier is not stored, and said so once.
  recorder.record({ ...call, tool: "" });
  recorder.record({ ...call, tool: "" });
  await recorder.close();
  assert.equal(appends, 2);
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.match(lines[0], /^store_error: 1 tool events not recorded: database or disk is full/);
  assert.match(lines[1], /^invalid_event: a call was not recorded/);
});

Deno.test("ToolCallRecorder reports each store failure code once, secrets masked", async () => {
  const lines: string[] = [];
  const codes = ["ENOSPC", "ENOSPC", "SQLITE_READONLY"];
  const broken = {
    location: "broken",
    append() {
      const code = codes.shift();
      return Promise.reject(Object.assign(new Error(`write failed near ${SECRET}`), { code }));
    },
  } as unknown as EventStore;
  const recorder = new ToolCallRecorder(broken, {
    secrets: [SECRET],
    onError: (line) => lines.push(line),
  });
  const call = {
    tool: "find",
    args: {},
    outcome: "SUCCESS" as const,
    startedMs: 1_000,
    latencyMs: 1,
  };
  for (let index = 0; index < 3; index++) {
    recorder.record(call);
    await recorder.flush();
  }
  await recorder.close();
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.match(lines[0], /^store_error ENOSPC: 1 tool events not recorded: write failed near \*/);
  assert.match(lines[1], /^store_error SQLITE_READONLY: /);
  assert.ok(!lines.join("\n").includes(SECRET));
});

Deno.test("ToolCallRecorder keeps at most MAX_PENDING_EVENTS waiting and drops the rest, said once", async () => {
  const lines: string[] = [];
  const release = Promise.withResolvers<void>();
  let stored = 0;
  const slow = {
    location: "slow",
    async append(events: unknown[]) {
      await release.promise;
      stored += events.length;
      return { added: events.length, duplicates: 0 };
    },
  } as unknown as EventStore;
  const recorder = new ToolCallRecorder(slow, { onError: (line) => lines.push(line) });
  const call = {
    tool: "find",
    args: {},
    outcome: "SUCCESS" as const,
    startedMs: 1_000,
    latencyMs: 1,
    sessionId: "s",
  };
  // The store hangs: record() still returns at once, and the backlog stays bounded.
  for (let index = 0; index < MAX_PENDING_EVENTS + 10; index++) recorder.record(call);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^backlog: more than 1000 events wait for the store: dropped/);
  release.resolve();
  await recorder.close();
  assert.equal(stored, MAX_PENDING_EVENTS);
});

Deno.test("ToolCallRecorder masks every secret-named field at any depth and caps large arguments", async () => {
  await withStore(async (store) => {
    const recorder = new ToolCallRecorder(store, { flushMs: 10_000 });
    recorder.record({
      tool: "login",
      args: {
        user: "ann",
        token: "plain-token-value",
        password: "hunter2-password",
        nested: [{ deeper: { client_secret: "cs-value-123", access_token: { any: "shape" } } }],
        cookie: "session=abc123def",
        token_type: "bearer",
        blob: "z".repeat(800_000),
      },
      output: { structured: { refresh_token: "rt-value-456", expires_in: 3600 } },
      outcome: "SUCCESS",
      startedMs: Date.now(),
      latencyMs: 1,
      sessionId: "s2",
    });
    recorder.record({
      tool: "bulk",
      args: { items: Array.from({ length: 40 }, (_, index) => `${index}`.repeat(4000)) },
      outcome: "SUCCESS",
      startedMs: Date.now(),
      latencyMs: 1,
      sessionId: "s2",
    });
    await recorder.close();
    const [login, bulk] = await store.getBySession("s2");
    const stored = JSON.stringify(login);
    for (
      const secret of ["plain-token-value", "hunter2", "cs-value", "shape", "abc123", "rt-value"]
    ) {
      assert.ok(!stored.includes(secret), `${secret} leaked: ${stored.slice(0, 300)}`);
    }
    assert.equal(login.input_params.user, "ann");
    assert.equal(login.input_params.token_type, "bearer", "a name that only contains a word");
    assert.equal((login.input_params.blob as string).length, OUTPUT_SUMMARY_CHARS + 1);
    assert.match(login.output_summary!, /"expires_in":3600/);
    assert.ok(JSON.stringify(bulk.input_params).length < 70_000);
    assert.match(JSON.stringify(bulk.input_params), /not recorded/);
  });
});

Deno.test("ToolCallRecorder writes each session's origin once, its command line's secrets masked", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_recorder_origin_" });
  const store = openSqliteEventStore(join(dir, "state"));
  try {
    const recorder = new ToolCallRecorder(store, {
      flushMs: 10_000,
      stateDir: join(dir, "state"),
      secrets: ["known-secret-value"],
    });
    const origin = {
      upstream: {
        transport: "stdio" as const,
        command: [
          "server",
          "--token",
          "tok-abc-123",
          "--api-key=k-999",
          "--name",
          "known-secret-value",
        ],
        cwd: "/srv",
      },
      readOnlyTools: ["read", "list"],
    };
    for (const sessionId of ["a", "a", "b"]) {
      recorder.record({
        tool: "read",
        args: {},
        outcome: "SUCCESS",
        startedMs: Date.now(),
        latencyMs: 1,
        sessionId,
        origin,
      });
    }
    await recorder.close();
    const { readSessionOrigins, sessionOriginsPath } = await import("./session_origins.ts");
    const origins = await readSessionOrigins(join(dir, "state"));
    assert.deepEqual([...origins.keys()].sort(), ["a", "b"]);
    const text = await Deno.readTextFile(sessionOriginsPath(join(dir, "state")));
    assert.equal(text.trim().split("\n").length, 2, "one line per session");
    assert.deepEqual(origins.get("a")?.upstream, {
      transport: "stdio",
      command: [
        "server",
        "--token",
        "***redacted***",
        "--api-key=***redacted***",
        "--name",
        "***redacted***",
      ],
      cwd: "/srv",
    });
    assert.deepEqual(origins.get("a")?.read_only_tools, ["list", "read"]);
    assert.equal((await Deno.stat(sessionOriginsPath(join(dir, "state")))).mode! & 0o777, 0o600);
    // Untrusted on read: a foreign line is skipped, not fatal.
    await Deno.writeTextFile(
      sessionOriginsPath(join(dir, "state")),
      '{"session_id": 1}\nnot json\n',
      {
        append: true,
      },
    );
    assert.equal((await readSessionOrigins(join(dir, "state"))).size, 2);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readSessionOrigins() refuses an origins file others may write or that is a link", async () => {
  const { readSessionOrigins, sessionOriginsPath } = await import("./session_origins.ts");
  const dir = await Deno.makeTempDir({ prefix: "syn_origins_trust_" });
  try {
    const path = sessionOriginsPath(dir);
    const line = JSON.stringify({
      session_id: "s",
      upstream: { transport: "stdio", command: ["server"] },
      read_only_tools: [],
      recorded_at: "2026-01-01T00:00:00Z",
    });
    await Deno.writeTextFile(path, `${line}\n`, { mode: 0o600 });
    assert.equal((await readSessionOrigins(dir)).size, 1);
    await Deno.chmod(path, 0o666);
    await assert.rejects(readSessionOrigins(dir), /writable by others \(mode 666\)/);
    await Deno.chmod(path, 0o600);
    await Deno.rename(path, `${dir}/elsewhere.jsonl`);
    await Deno.symlink(`${dir}/elsewhere.jsonl`, path);
    await assert.rejects(readSessionOrigins(dir), /not a regular file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
