import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { childEnv } from "./fakes/child_env.ts";
import { fakeIo, SELF_COMMAND } from "./fakes/cli_io.ts";

function event(id: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event_id: id,
    session_id: "s1",
    tool_id: "kb.search",
    input_params: { q: id },
    output_summary: "ok",
    outcome: "SUCCESS",
    latency_ms: 3,
    ts: "2026-01-01T00:00:00Z",
    ...fields,
  });
}

function workDir(): { path: string } & Disposable {
  const path = Deno.makeTempDirSync({ prefix: "syn_synth_cli_" });
  return { path, [Symbol.dispose]: () => Deno.removeSync(path, { recursive: true }) };
}

async function syn(args: string[], options: Parameters<typeof fakeIo>[0] = {}) {
  const io = fakeIo(options);
  const code = await runCli(["synthesize", ...args], io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

Deno.test("syn synthesize --help teaches the formats, the store and idempotency", async () => {
  for (const args of [["--help"], ["ingest", "--help"]]) {
    const result = await syn(args);
    assert.equal(result.code, 0);
    for (
      const needle of ["taubench", "tool_done", "SYN_EVENT_STORE", "idempotent", "--state-dir"]
    ) {
      assert.ok(result.stdout.includes(needle), `${args.join(" ")}: ${needle}`);
    }
  }
});

Deno.test("syn synthesize: usage errors exit 2 with a one-line hint", async () => {
  const cases: [string[], RegExp][] = [
    [[], /no events in sqlite .*: give --ingest FILE or run 'syn synthesize ingest'/],
    [["mine-everything"], /unknown synthesize subcommand: mine-everything/],
    [["ingest"], /name the files or folders to ingest/],
    [
      ["ingest", "a.jsonl", "--format", "csv"],
      /--format takes auto \| events \| trace \| taubench \| bfcl: csv/,
    ],
    [["ingest", "-", "-"], /'-' \(standard input\) can be given once/],
    [["ingest", "--bogus", "a.jsonl"], /unknown option '--bogus'/],
  ];
  using dir = workDir();
  for (const [args, pattern] of cases) {
    const result = await syn(args, { cwd: dir.path });
    assert.equal(result.code, 2, args.join(" "));
    assert.match(result.stderr, pattern);
    assert.match(result.stderr, /see 'syn synthesize --help'\n$/);
  }
});

Deno.test("syn synthesize ingest stores events in $SYN_STATE_DIR and reports counts", async () => {
  using work = workDir();
  Deno.writeTextFileSync(join(work.path, "events.jsonl"), `${event("e1")}\n${event("e2")}\n`);
  const env = { SYN_STATE_DIR: join(work.path, "state") };
  const first = await syn(["ingest", "events.jsonl"], { cwd: work.path, env });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    first.stdout,
    "1 file: 2 events read, 2 added, 0 duplicates, 0 lines without an event, 0 bad lines\n" +
      `sqlite ${join(work.path, "state", "events.sqlite")}: 2 events in 1 sessions\n`,
  );
  const second = await syn(["ingest", "events.jsonl"], { cwd: work.path, env });
  assert.match(second.stdout, /2 events read, 0 added, 2 duplicates/);
});

Deno.test("syn synthesize ingest defaults to .syn/ and --state-dir wins over the environment", async () => {
  using work = workDir();
  Deno.writeTextFileSync(join(work.path, "events.jsonl"), `${event("e1")}\n`);
  assert.equal((await syn(["ingest", "events.jsonl"], { cwd: work.path })).code, 0);
  assert.ok(Deno.statSync(join(work.path, ".syn", "events.sqlite")).isFile);
  const env = { SYN_STATE_DIR: join(work.path, "ignored") };
  const flagged = await syn(["ingest", "events.jsonl", "--state-dir", "mine"], {
    cwd: work.path,
    env,
  });
  assert.equal(flagged.code, 0);
  assert.ok(Deno.statSync(join(work.path, "mine", "events.sqlite")).isFile);
  assert.throws(() => Deno.statSync(join(work.path, "ignored")), Deno.errors.NotFound);
});

Deno.test("syn synthesize ingest lists bad lines on stderr by file and line and exits 1", async () => {
  using work = workDir();
  Deno.mkdirSync(join(work.path, "logs"));
  Deno.writeTextFileSync(
    join(work.path, "logs", "day1.jsonl"),
    `${event("e1")}\n{oops\n${event("e2", { latency_ms: -4 })}\n`,
  );
  const result = await syn(["ingest", "logs"], { cwd: work.path });
  assert.equal(result.code, 1);
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 2, result.stderr);
  assert.match(lines[0], /^logs\/day1\.jsonl:2: not JSON: /);
  assert.equal(lines[1], "logs/day1.jsonl:3: /latency_ms: must be >= 0");
  assert.match(
    result.stdout,
    /1 events read, 1 added, 0 duplicates, 0 lines without an event, 2 bad lines/,
  );
});

Deno.test("syn synthesize ingest names the --format a mostly bad file looks like", async () => {
  using dir = workDir();
  const session = (id: string) =>
    JSON.stringify({ session_id: id, source: "tau-bench/raw/a.json", calls: [] });
  await Deno.writeTextFile(join(dir.path, "tau.jsonl"), `${session("t1")}\n${session("t2")}\n`);
  const result = await syn(["ingest", "--format", "events", "tau.jsonl"], { cwd: dir.path });
  assert.equal(result.code, 1);
  const hints = result.stderr.split("\n").filter((line) => line.startsWith("hint:"));
  assert.deepEqual(hints, [
    "hint: 2 of 2 lines of tau.jsonl are tau-bench sessions: try --format taubench (or --format auto)",
  ]);
  const auto = await syn(["ingest", "tau.jsonl"], { cwd: dir.path });
  assert.equal(auto.code, 0, auto.stderr);
  assert.doesNotMatch(auto.stderr, /hint:/);
});

Deno.test("syn synthesize ingest --json prints the whole report", async () => {
  using work = workDir();
  Deno.writeTextFileSync(join(work.path, "a.jsonl"), `${event("e1")}\nnope\n`);
  const result = await syn(["ingest", "a.jsonl", "--json"], { cwd: work.path });
  assert.equal(result.code, 1);
  assert.equal(result.stderr, "");
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report, {
    store: `sqlite ${join(work.path, ".syn", "events.sqlite")}`,
    files: 1,
    read: 1,
    added: 1,
    duplicates: 0,
    skipped: 0,
    bad: [{ file: "a.jsonl", line: 2, reason: report.bad[0].reason }],
    bad_total: 1,
    format_hints: [],
    stored_events: 1,
    stored_sessions: 1,
  });
});

Deno.test("syn synthesize ingest: a missing input or a foreign SYN_EVENT_STORE exits 2", async () => {
  using work = workDir();
  const missing = await syn(["ingest", "gone.jsonl"], { cwd: work.path });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^syn synthesize: Cannot read gone\.jsonl: /);
  Deno.writeTextFileSync(join(work.path, "a.jsonl"), `${event("e1")}\n`);
  const foreign = await syn(["ingest", "a.jsonl"], {
    cwd: work.path,
    env: { SYN_EVENT_STORE: "redis://:pw@host" },
  });
  assert.equal(foreign.code, 2);
  assert.match(foreign.stderr, /SYN_EVENT_STORE must be empty .* not redis:/);
  assert.doesNotMatch(foreign.stderr, /pw@host/);
});

Deno.test("syn synthesize ingest shows a progress line only on a terminal", async () => {
  using work = workDir();
  const name = "a\u001b]0;title\u0007.jsonl";
  Deno.writeTextFileSync(join(work.path, name), `${event("e1")}\n`);
  const terminal = await syn(["ingest", name], { cwd: work.path, terminal: true });
  assert.equal(
    terminal.stderr,
    "\r\x1b[2Kingest: a\\x1b]0;title\\x07.jsonl: 1 events, 1 new, 0 duplicates, 0 bad lines" +
      "\r\x1b[2K",
  );
  const piped = await syn(["ingest", name], { cwd: work.path });
  assert.equal(piped.stderr, "");
});

Deno.test("syn synthesize ingest - reads standard input in a real process", async () => {
  using work = workDir();
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), "synthesize", "ingest", "-", "--json"],
    cwd: work.path,
    clearEnv: true,
    env: childEnv({ HOME: work.path }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(`${event("e1")}\n${event("e2", { ts: 1767225601 })}\n`),
  );
  await writer.close();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.deepEqual([report.files, report.added, report.stored_events], [1, 2, 2]);
});
