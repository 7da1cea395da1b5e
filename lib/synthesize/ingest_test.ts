import assert from "node:assert/strict";
import { join } from "node:path";
import { SynError } from "../core/mod.ts";
import {
  type IngestProgress,
  ingestSources,
  openSqliteEventStore,
  type SqliteEventStore,
} from "./mod.ts";
import { readLines } from "./_read_lines.ts";

interface Work extends AsyncDisposable {
  path: string;
  store: SqliteEventStore;
  write(name: string, text: string | Uint8Array): string;
}

function work(): Work {
  const path = Deno.makeTempDirSync({ prefix: "syn_ingest_" });
  const store = openSqliteEventStore(join(path, ".syn"));
  return {
    path,
    store,
    write(name, text) {
      const file = join(path, name);
      Deno.mkdirSync(join(file, ".."), { recursive: true });
      if (typeof text === "string") Deno.writeTextFileSync(file, text);
      else Deno.writeFileSync(file, text);
      return file;
    },
    async [Symbol.asyncDispose]() {
      await store.close();
      Deno.removeSync(path, { recursive: true });
    },
  };
}

function event(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: id,
    session_id: "s1",
    tool_id: "kb.search",
    input_params: { q: id },
    output_summary: null,
    outcome: "SUCCESS",
    latency_ms: 1,
    ts: "2026-01-01T00:00:00Z",
    ...fields,
  };
}

function jsonl(...values: unknown[]): string {
  return values.map((value) => typeof value === "string" ? value : JSON.stringify(value)).join(
    "\n",
  ) +
    "\n";
}

function stream(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

Deno.test("ingestSources() stores valid events and reports each bad line with file and line", async () => {
  await using w = work();
  const file = w.write(
    "events.jsonl",
    jsonl(
      event("e1"),
      "",
      "{not json",
      event("e2", { outcome: "DONE" }),
      event("e3"),
      "[1, 2]",
    ),
  );
  const report = await ingestSources(w.store, [{ path: file, name: "events.jsonl" }]);
  assert.deepEqual(
    { ...report, bad: report.bad.map((bad) => `${bad.file}:${bad.line}`) },
    {
      files: 1,
      read: 2,
      added: 2,
      duplicates: 0,
      skipped: 0,
      bad: ["events.jsonl:3", "events.jsonl:4", "events.jsonl:6"],
      bad_total: 3,
      format_hints: [],
    },
  );
  assert.match(report.bad[0].reason, /^not JSON: /);
  assert.match(report.bad[1].reason, /^\/outcome: must be equal to one of the allowed values/);
  assert.match(report.bad[2].reason, /^\/: must be object/);
  assert.deepEqual((await w.store.getBySession("s1")).map((stored) => stored.event_id), [
    "e1",
    "e3",
  ]);
});

Deno.test("ingestSources() is idempotent by event_id", async () => {
  await using w = work();
  const file = w.write("events.jsonl", jsonl(event("e1"), event("e2"), event("e1")));
  const first = await ingestSources(w.store, [{ path: file }]);
  assert.deepEqual([first.read, first.added, first.duplicates], [3, 2, 1]);
  const second = await ingestSources(w.store, [{ path: file }, { path: file }]);
  assert.deepEqual([second.files, second.read, second.added, second.duplicates], [2, 6, 0, 6]);
  assert.deepEqual(await w.store.stats(), { events: 2, sessions: 1 });
});

Deno.test("ingested events of a session are ordered by ts, then by file order", async () => {
  await using w = work();
  const first = w.write(
    "a.jsonl",
    jsonl(
      event("third", { ts: "2026-01-01T00:00:02Z" }),
      event("first", { ts: "2026-01-01T00:00:01Z" }),
      event("tie-1", { ts: 1767225602 }),
    ),
  );
  const second = w.write("b.jsonl", jsonl(event("tie-2", { ts: "2026-01-01T01:00:02+01:00" })));
  await ingestSources(w.store, [{ path: first }, { path: second }], { batchSize: 1 });
  assert.deepEqual(
    (await w.store.getBySession("s1")).map((stored) => stored.event_id),
    ["first", "third", "tie-1", "tie-2"],
  );
});

Deno.test("ingestSources() reads the tool_done lines of a trace and skips the other kinds", async () => {
  await using w = work();
  const done = {
    event_id: "7f0c",
    session_id: "chat-1",
    call_id: "t1",
    tool_id: "fs.read_text",
    input_params: { path: "notes.md" },
    output_summary: '{"text":"hi"}',
    outcome: "SUCCESS",
    error_code: null,
    latency_ms: 12,
    ts: "2026-01-01T00:00:01.500Z",
  };
  const file = w.write(
    "trace.jsonl",
    jsonl(
      { ts: 1767225601.2, kind: "tool_start", data: { event_id: "7f0c", tool_id: "fs.read_text" } },
      { ts: 1767225601.5, kind: "tool_done", data: done },
      { ts: 1767225602, kind: "llm_done", data: { round: 1, ms: 40 } },
      { ts: 1767225603, kind: "tool_done", data: { ...done, event_id: "81aa", ts: undefined } },
      { ts: 1767225604, kind: "tool_done", data: { ...done, event_id: "bad1", outcome: "?" } },
    ),
  );
  for (const format of ["trace", "auto"] as const) {
    const report = await ingestSources(w.store, [{ path: file }], { format });
    assert.deepEqual([report.read, report.skipped, report.bad_total], [2, 2, 1], format);
    assert.deepEqual(report.bad[0].line, 5);
    assert.match(report.bad[0].reason, /^tool_done: \/outcome: /);
  }
  const events = await w.store.getBySession("chat-1");
  assert.deepEqual(events.map((stored) => [stored.event_id, stored.ts]), [
    ["7f0c", "2026-01-01T00:00:01.500Z"],
    ["81aa", 1767225603], // no ts in data: the line's unix seconds
  ]);
  assert.deepEqual(events[0].input_params, { path: "notes.md" });
});

Deno.test("a named format refuses lines of another shape", async () => {
  await using w = work();
  const file = w.write("mixed.jsonl", jsonl(event("e1"), { session_id: "x", calls: [] }));
  const asTrace = await ingestSources(w.store, [{ path: file }], { format: "trace" });
  assert.deepEqual(asTrace.bad.map((bad) => [bad.line, bad.reason]), [
    [1, "not a trace line: expected {ts, kind, data}"],
    [2, "not a trace line: expected {ts, kind, data}"],
  ]);
  const asCorpus = await ingestSources(w.store, [{ path: file }], { format: "bfcl" });
  assert.deepEqual(asCorpus.bad.map((bad) => [bad.line, bad.reason]), [
    [1, "not a session line: expected {session_id, calls: [...]}"],
  ]);
  const asEvents = await ingestSources(w.store, [{ path: file }], { format: "events" });
  assert.deepEqual(asEvents.bad.map((bad) => bad.line), [2]);
  assert.equal(asEvents.added, 1);
});

Deno.test("when most lines are bad, the format they look like is named", async () => {
  await using w = work();
  const tau = w.write(
    "tau.jsonl",
    jsonl(
      { session_id: "t1", source: "tau-bench/raw/x.json", calls: [{ name: "a", args: {} }] },
      { session_id: "t2", source: "tau-bench/raw/x.json", calls: [] },
      event("e1"),
    ),
  );
  const bfcl = w.write(
    "bfcl.jsonl",
    jsonl({ session_id: "b1", source: "bfcl-multi-turn/raw/y.json", calls: [] }),
  );
  const events = w.write("events.jsonl", jsonl(event("e2"), event("e3"), "{oops"));
  const asEvents = await ingestSources(w.store, [{ path: tau }, { path: bfcl }], {
    format: "events",
  });
  assert.deepEqual(asEvents.format_hints, [
    { file: tau, format: "taubench", matching: 2, lines: 3 },
    { file: bfcl, format: "bfcl", matching: 1, lines: 1 },
  ]);
  const asTrace = await ingestSources(w.store, [{ path: events }], { format: "trace" });
  assert.deepEqual(asTrace.format_hints, [
    { file: events, format: "events", matching: 2, lines: 3 },
  ]);
  // Fewer than half the lines bad, the right shape read as its twin, or auto: no hint.
  for (
    const [path, format] of [[events, "events"], [bfcl, "taubench"], [tau, "auto"]] as const
  ) {
    const report = await ingestSources(w.store, [{ path }], { format });
    assert.deepEqual(report.format_hints, [], `${path} as ${format}`);
  }
});

Deno.test("corpus sessions give one event per call with derived ids, clock and outcome", async () => {
  await using w = work();
  const file = w.write(
    "sessions.jsonl",
    jsonl(
      {
        session_id: "tau-1",
        kind: "agent_run",
        calls: [
          { turn: 1, name: "get_user_details", args: { user_id: "u1" }, output: '{"name": "A"}' },
          { turn: 2, name: "book", args: {}, output: "Error: not enough seats" },
          { turn: 3, name: "think", args: { thought: "x" } },
        ],
      },
      { session_id: "tau-empty", calls: [] },
      { session_id: "tau-3", calls: [{ name: "ok", args: {} }, "not a call", { args: {} }] },
    ),
  );
  const report = await ingestSources(w.store, [{ path: file }], { format: "taubench" });
  assert.deepEqual([report.read, report.added, report.bad_total], [4, 4, 2]);
  assert.deepEqual(report.bad.map((bad) => [bad.line, bad.reason.split(":")[0]]), [
    [3, "call 1"],
    [3, "call 2"],
  ]);
  const events = await w.store.getBySession("tau-1");
  assert.deepEqual(
    events.map((
      stored,
    ) => [stored.event_id, stored.tool_id, stored.outcome, stored.ts, stored.latency_ms]),
    [
      ["tau-1:0", "get_user_details", "SUCCESS", 1000, 0],
      ["tau-1:1", "book", "FAILURE", 1001, 0],
      ["tau-1:2", "think", "SUCCESS", 1002, 0],
    ],
  );
  assert.equal(events[0].output_summary, '{"name": "A"}');
  assert.equal(events[2].output_summary, null);
  assert.deepEqual((await w.store.getBySession("tau-3")).map((stored) => stored.ts), [3000]);
  const again = await ingestSources(w.store, [{ path: file }], { format: "auto" });
  assert.deepEqual([again.added, again.duplicates], [0, 4]);
});

Deno.test("size caps: a long line and an oversized file are reported, the rest goes on", async () => {
  await using w = work();
  const long = JSON.stringify(event("long", { output_summary: "x".repeat(2000) }));
  const file = w.write("caps.jsonl", jsonl(event("e1"), long, event("e2")));
  const report = await ingestSources(w.store, [{ path: file, name: "caps.jsonl" }], {
    maxLineBytes: 1000,
  });
  assert.deepEqual(report.bad, [{
    file: "caps.jsonl",
    line: 2,
    reason: "line longer than 1000 bytes",
  }]);
  assert.equal(report.added, 2);
  const big = w.write("big.jsonl", jsonl(...Array.from({ length: 400 }, (_, i) => event(`b${i}`))));
  const capped = await ingestSources(w.store, [{ path: big, name: "big.jsonl" }], {
    maxFileBytes: 2000,
  });
  assert.equal(capped.bad_total, 1);
  assert.match(capped.bad[0].reason, /^input larger than 2000 bytes: the rest is not read$/);
  assert.ok(capped.added > 0 && capped.added < 400, `${capped.added} events before the cap`);
});

Deno.test("not UTF-8, CRLF, a byte order mark and an encrypted envelope", async () => {
  await using w = work();
  const encoder = new TextEncoder();
  const bytes = new Uint8Array([
    ...encoder.encode(`\ufeff${JSON.stringify(event("bom"))}\r\n`),
    0xff,
    0xfe,
    0x0a,
    ...encoder.encode(`${JSON.stringify({ syn_encrypted: 1, salt: "", iv: "", data: "" })}\n`),
    ...encoder.encode(`${JSON.stringify(event("crlf"))}\r\n`),
  ]);
  const file = w.write("odd.jsonl", bytes);
  const report = await ingestSources(w.store, [{ path: file, name: "odd.jsonl" }]);
  assert.deepEqual(report.bad.map((bad) => [bad.line, bad.reason]), [
    [2, "not UTF-8 text"],
    [3, "encrypted at rest (syn_encrypted): decrypt it first"],
  ]);
  assert.equal(report.added, 2);
});

Deno.test("bad reasons quoting the line cannot carry terminal escapes", async () => {
  await using w = work();
  const file = w.write("esc.jsonl", "\u001b[2J\u001b]0;owned\u0007 {\n");
  const report = await ingestSources(w.store, [{ path: file }]);
  assert.equal(report.bad_total, 1);
  const controls = [...report.bad[0].reason].filter((char) => char.charCodeAt(0) < 0x20);
  assert.deepEqual(controls, [], report.bad[0].reason);
  assert.ok(report.bad[0].reason.includes("\\x1b[2J"), report.bad[0].reason);
});

Deno.test("a folder gives its *.jsonl files, recursively, in name order", async () => {
  await using w = work();
  w.write("in/b.jsonl", jsonl(event("b", { ts: 2 })));
  w.write("in/a/z.jsonl", jsonl(event("az", { ts: 1 }), "oops"));
  w.write("in/notes.json", jsonl(event("ignored")));
  w.write("in/c.txt", "oops");
  const report = await ingestSources(w.store, [{ path: join(w.path, "in"), name: "in" }]);
  assert.deepEqual([report.files, report.added], [2, 2]);
  assert.deepEqual(report.bad, [{ file: "in/a/z.jsonl", line: 2, reason: report.bad[0].reason }]);
  assert.equal(await w.store.get("ignored"), undefined);
});

Deno.test("a missing input fails before anything is stored", async () => {
  await using w = work();
  const file = w.write("ok.jsonl", jsonl(event("e1")));
  await assert.rejects(
    ingestSources(w.store, [{ path: file }, {
      path: join(w.path, "gone.jsonl"),
      name: "gone.jsonl",
    }]),
    (error: unknown) =>
      error instanceof SynError && error.code === "io_error" && /gone\.jsonl/.test(error.message),
  );
  assert.deepEqual(await w.store.stats(), { events: 0, sessions: 0 });
});

Deno.test("a stream is read as <stdin>; progress is reported per batch", async () => {
  await using w = work();
  const lines = Array.from({ length: 25 }, (_, index) => JSON.stringify(event(`e${index}`)));
  const seen: IngestProgress[] = [];
  const report = await ingestSources(
    w.store,
    [{
      path: "-",
      stream: stream(lines.join("\n").slice(0, 700), lines.join("\n").slice(700), "\nbad\n"),
    }],
    { batchSize: 10, onProgress: (progress) => seen.push(progress) },
  );
  assert.equal(report.added, 25);
  assert.deepEqual(report.bad.map((bad) => [bad.file, bad.line]), [["<stdin>", 26]]);
  assert.deepEqual(seen.map((progress) => progress.read), [10, 20, 25]);
  assert.deepEqual(seen.at(-1), { file: "<stdin>", read: 25, added: 25, duplicates: 0, bad: 1 });
});

Deno.test("only the first 1000 bad lines are listed; bad_total counts all", async () => {
  await using w = work();
  const file = w.write("bad.jsonl", "x\n".repeat(1500));
  const report = await ingestSources(w.store, [{ path: file }]);
  assert.equal(report.bad.length, 1000);
  assert.equal(report.bad_total, 1500);
  assert.equal(report.bad.at(-1)!.line, 1000);
});

Deno.test("readLines() joins lines split across chunks, even inside a UTF-8 character", async () => {
  const bytes = new TextEncoder().encode("añb\n\nlast ü");
  const lines = [];
  for await (
    const line of readLines(stream(bytes.slice(0, 2), bytes.slice(2, 3), bytes.slice(3)), {
      maxLineBytes: 100,
      maxFileBytes: 100,
    })
  ) lines.push(line);
  assert.deepEqual(lines, [{ line: 1, text: "añb" }, { line: 3, text: "last ü" }]);
});

Deno.test("a line nested too deeply is reported by its line number; the rest is stored", async () => {
  await using dir = work();
  const deep = "[".repeat(200_000) + "1" + "]".repeat(200_000);
  const file = dir.write(
    "deep.jsonl",
    jsonl(event("a"), `{"event_id":"b","input_params":{"x":${deep}}}`, event("c")),
  );
  const report = await ingestSources(dir.store, [{ path: file, name: "deep.jsonl" }]);
  assert.equal(report.added, 2);
  assert.deepEqual(report.bad, [{
    file: "deep.jsonl",
    line: 2,
    reason: "nested deeper than 64 levels",
  }]);
});
