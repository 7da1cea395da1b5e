import { neutralizeTerminalText, resolvePath, UsageError } from "../core/mod.ts";
import {
  type EventStore,
  type FormatHint,
  INGEST_FORMATS,
  type IngestFormat,
  type IngestProgress,
  type IngestReport,
  type IngestSource,
  ingestSources,
  openEventStore,
} from "../synthesize/mod.ts";
import { parseCommandArgs } from "./args.ts";
import { mine } from "./_synthesize_mine.ts";
import { runPipeline } from "./_synthesize_pipeline.ts";
import {
  approveTool,
  listTools,
  reportSavings,
  runSynthesisCommand,
  validateTool,
} from "./_synthesize_tools.ts";
import { type CliIo, EXIT } from "./io.ts";
import { stateDirectory } from "./_state_dir.ts";

export const help = `syn synthesize — find repeated tool-call chains in agent sessions and turn them
into composite tools

Usage:
  syn synthesize [--ingest FILE]... [--format F] [--top 3] [--min-support S]
                 [--execute --fresh-upstream [--jobs N] [-- <command>…]]
                 [--allow-replay-only] [--config syn.jsonc] [--state-dir DIR] [--json]
  syn synthesize ingest <file|dir|->... [--format F] [--state-dir DIR] [--json]
  syn synthesize mine [--min-support S] [--min-length 2] [--max-length 6] [--top 20]
                      [--collapse-repeats] [--state-dir DIR] [--json]
  syn synthesize run [<chain> | --top N] [--engine E] [--model ID] [--endpoint URL]
                     [--min-support S] [--config syn.jsonc] [--state-dir DIR] [--json]
  syn synthesize validate <tool-id> [--execute --fresh-upstream [--jobs N]
                          [-- <command> [args…]]] [--allow-replay-only]
                          [--config syn.jsonc] [--state-dir DIR] [--json]
  syn synthesize validate <tool-id> --execute --root DIR [--grant CAP]... [--jobs N]
                          [--shell-without-bubblewrap]
  syn synthesize validate <tool-id> --execute --upstream -- <command> [args…]
  syn synthesize validate <tool-id> --execute --upstream-url URL
                          [--upstream-header-env 'Name=ENV_NAME']... [--upstream-header-file F]
  syn synthesize approve <tool-id> --promote [--allow-replay-only] [--state-dir DIR]
                         [--json]
  syn synthesize list [--state-dir DIR] [--json]
  syn synthesize report [--include-testing] [--state-dir DIR] [--json]

With no subcommand: the whole pipeline — ingest the --ingest inputs (if any), mine,
write a tool for each of the top chains, validate each (executing it too with --execute,
as validate does); a tool that passes becomes TESTING (PROMOTED when require_approval is
false and it was executed, or --allow-replay-only accepts replay), one that fails or
lacks sessions stays DRAFT. A progress line per stage goes to stderr, the summary to
stdout.

Subcommands:
  ingest    read recorded tool calls into the event store (the input of everything else)
  mine      the chains of tool calls that recur across sessions
  run       write a composite tool for a chain (a>b, as mine prints it) or the top N:
            samples, parameter analysis, the five checks, stored as DRAFT in
            DIR/synthesized/
  validate  replay the newest sessions holding the chain: wiring, projected output vs
            recorded (cosine_tfidf or exact_match), latency ratio, error parity; a
            passing tool becomes TESTING (PROMOTED when require_approval is false and it
            was executed). Replay alone (evidence "replay") scores whether the steps are
            called as recorded: their recorded output is replayed, so it reproduces by
            construction — it never promotes unless --allow-replay-only says so.
            --execute --fresh-upstream executes it (evidence "execution"): for each
            session, two fresh upstreams started as the session's was recorded (or with
            the command after --), the session's earlier calls replayed on both, the
            original calls on one and the composite on the other, the later calls on
            both; every step's output and every later output must agree, so a composite
            that leaves another state behind fails. This is the only way a chain with a
            write step is executed. Sessions run --jobs at a time (default 2), each
            with a deadline. --execute --root DIR does the same for syn's own tools, in
            fresh copies of DIR (DIR itself is never written; shell.exec steps run only
            inside bubblewrap unless --shell-without-bubblewrap, as for syn tools run).
            --execute --upstream --
            <command…> (or --upstream-url URL) runs a read-only chain against that live
            server instead (one with a write step is refused there). Sessions whose
            steps all have latency 0 give "no latency recorded" (latency.recorded
            false), not a ratio
  approve   --promote a TESTING tool (a DRAFT is refused with the reason; so is a tool
            validated on replay alone, unless --allow-replay-only: list then says so)
  list      every synthesized tool with its status
  report    on the stored sessions, the tool calls (and LLM round trips) the PROMOTED
            composites would have saved: a chain of k calls run as one saves k - 1

Configuration: syn.jsonc in the current folder (or --config FILE), JSON with comments,
with the keys of the synthesis spec and its defaults:
  {"huginn": {
    "synthesis": {"llm_model": "claude-sonnet-4-20250514", "require_approval": true,
                  "max_parallel_steps": 3, ...},
    "validation": {"min_replay_sessions": 10, "equivalence_threshold": 0.95,
                   "max_latency_regression": 1.2, "similarity_method": "cosine_tfidf"},
    "llm": {"timeout_seconds": 120, "max_retries": 3, "backoff_base_ms": 1000,
            "backoff_factor": 2.0, "retry_on": [429, 500, 502, 503]}}}
Of HTTP errors only the retry_on statuses are retried (504 is not); network errors and
timeouts are too.
Engines for run: deterministic (offline, from the parameter analysis alone), or openai,
anthropic, gemini, openai-compatible: the synthesis spec's prompt (Jinja), the
SynthesizedTool schema as structured output, temperature 0, the five checks on the answer
and max_retries_on_invalid corrections. A provider runs in mock mode (its canned answer is
the offline tool) unless LABS_EXTERNAL_LIVE=1 and its key (OPENAI_API_KEY, ...) are set.
Without --engine: deterministic, or, with LABS_EXTERNAL_LIVE=1, the provider llm_model
names (claude-* anthropic, gpt-* and o* openai, gemini-* gemini). llm_model is the model of
the engine it names (any other id: of openai-compatible); --model wins over it, and it over
OPENAI_MODEL etc. OPENAI_ENDPOINT etc. and --endpoint work as for 'syn generate'.

mine counts contiguous runs of tool ids within each session. support = sessions
containing the chain ÷ all sessions; confidence = support(chain) ÷ support(chain
without its last tool); mean latency = the chain's summed latency averaged over its
occurrences; sample_event_ids (--json) = the first event of up to 20 occurrences,
newest sessions first. Sorted by support, then longer first, then name.
--collapse-repeats treats immediate repeats (get get update) as one step.

ingest reads JSON Lines from files, folders (every *.jsonl inside, recursively) and
'-' (standard input). --format says what the lines are (default auto: decided per line):
  events    one tool event per line, our format (schemas/records/tool-event.schema.json):
            {"event_id": "e1", "session_id": "s1", "tool_id": "kb.search",
             "input_params": {"q": "x"}, "output_summary": "3 hits", "outcome": "SUCCESS",
             "latency_ms": 42, "ts": "2026-01-01T10:00:00Z"}
            outcome is SUCCESS, FAILURE or TIMEOUT; ts an RFC 3339 date-time with a
            time zone, or unix seconds.
  trace     the traces of 'syn chat' (<state-dir>/traces/*.jsonl; they keep tool outputs
            only with --log-content) and of 'syn tools run --trace FILE': {ts, kind, data}
            lines; each tool_done line is one event, the other kinds are skipped.
  taubench  sessions.jsonl of the public tau-bench corpus: one line per session, one
  bfcl      event per call (the BFCL multi-turn corpus has the same shape). They record no
            ids or times: event_id is <session_id>:<index>, ts a clock that follows the
            file (line × 1000 + index, in unix seconds), latency 0, outcome FAILURE when
            the output starts with "Error", else SUCCESS.

Within a session, events are ordered by ts, then by file order.
Ingest is idempotent: an event whose event_id is already stored is counted as a
duplicate and the stored copy stays, so ingesting the same files again adds nothing.
A line that holds no valid event is reported with its file, line and reason, and
skipped; the rest is still ingested. When most lines of a file are bad and most look
like another format, a 'hint:' line on stderr names its --format. Lines over 1 MiB and
files over 256 MiB are refused before parsing.

Where events are kept:
  --state-dir DIR   the state folder (default $SYN_STATE_DIR, else .syn/ here); the
                    event store is DIR/events.sqlite (SQLite, WAL)
  SYN_EVENT_STORE   a postgres://user:password@host:5432/db URL keeps the events in
                    Postgres instead (table syn_tool_events, created when missing)

Options:
  --format F        auto | events | trace | taubench | bfcl (default auto)
  --json            print the report as JSON: counts, the store, the bad lines
  -h, --help        show this help

Exit codes: 0 every line was read, 1 some lines were bad (the good ones are stored),
2 bad usage, a missing input or an unreachable store.

Examples:
  syn synthesize ingest events.jsonl
  syn synthesize ingest .syn/traces/
  syn tools run fs.list_dir --root . --trace trace.jsonl && syn synthesize ingest trace.jsonl
  syn synthesize ingest --format taubench tau-bench/sessions.jsonl
  cat events.jsonl | syn synthesize ingest - --json
  syn synthesize mine --min-support 0.05 --top 10
  syn synthesize mine --collapse-repeats --json
  syn synthesize run --top 3
  syn synthesize run "get_user_details>get_order_details"
  syn synthesize validate get_user_details-then-get_order_details
  syn synthesize validate get_user_details-then-get_order_details --execute --fresh-upstream
  syn synthesize approve get_user_details-then-get_order_details --promote
  SYN_EVENT_STORE=postgres://syn@127.0.0.1:5432/agents syn synthesize ingest traces/
`;

type Subcommand = (args: string[], io: CliIo) => Promise<number>;

/** One function per subcommand; the next stages (mine, run, validate, ...) join this table. */
const SUBCOMMANDS: Record<string, Subcommand> = {
  ingest: async (args, io) => (await ingest(args, io)).code,
  mine: (args, io) => mine(args, io, { help, stateDirectory, printable }),
  run: (args, io) => runSynthesisCommand(args, io, { help, stateDirectory, printable }),
  validate: (args, io) => validateTool(args, io, { help, stateDirectory, printable }),
  approve: (args, io) => approveTool(args, io, { help, stateDirectory, printable }),
  list: (args, io) => listTools(args, io, { help, stateDirectory, printable }),
  report: (args, io) => reportSavings(args, io, { help, stateDirectory, printable }),
};

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const names = Object.keys(SUBCOMMANDS).join(", ");
  if (sub === "--help" || sub === "-h") return await io.stdout(help), EXIT.ok;
  if (sub === undefined || sub.startsWith("-")) {
    return await runPipeline(args, io, { help, stateDirectory, printable, ingest });
  }
  const command = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!command) {
    throw new UsageError(`unknown synthesize subcommand: ${printable(sub)} (say ${names})`);
  }
  return await command(rest, io);
}

const FORMAT_NAMES: Record<FormatHint["format"], string> = {
  events: "tool events",
  trace: "trace lines",
  taubench: "tau-bench sessions",
  bfcl: "BFCL sessions",
};

/** Text from outside (file names, reasons) with control characters escaped for a terminal. */
function printable(text: string): string {
  return neutralizeTerminalText(text).replaceAll("\n", "\\n");
}

const BAD_LINES_SHOWN = 20;

/** `syn synthesize ingest`: its exit code and report (the pipeline prints its own line). */
async function ingest(
  args: string[],
  io: CliIo,
): Promise<{ code: number; report?: IngestReport }> {
  const { values, positionals } = parseCommandArgs("synthesize ingest", args, {
    format: { type: "string" },
    "state-dir": { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return await io.stdout(help), { code: EXIT.ok };
  const format = (values.format ?? "auto") as IngestFormat;
  if (!INGEST_FORMATS.includes(format)) {
    throw new UsageError(`--format takes ${INGEST_FORMATS.join(" | ")}: ${printable(format)}`);
  }
  const sources = ingestInputs(positionals, io);
  await using store = await openEventStore(
    stateDirectory(io, values["state-dir"]),
    io.config.eventStore,
  );
  const progress = io.stderrIsTerminal ? progressLine(io) : undefined;
  const report = await ingestSources(store, sources, { format, onProgress: progress?.update });
  await progress?.clear();
  await printReport(io, store, report, values.json ?? false);
  for (const hint of report.format_hints) {
    await io.stderr(
      `hint: ${hint.matching} of ${hint.lines} lines of ${printable(hint.file)} are ` +
        `${FORMAT_NAMES[hint.format]}: try --format ${hint.format} (or --format auto)\n`,
    );
  }
  return { code: report.bad_total ? EXIT.failure : EXIT.ok, report };
}

function ingestInputs(positionals: string[], io: CliIo): IngestSource[] {
  if (positionals.length === 0) {
    throw new UsageError("name the files or folders to ingest ('-' for standard input)");
  }
  if (positionals.filter((name) => name === "-").length > 1) {
    throw new UsageError("'-' (standard input) can be given once");
  }
  return positionals.map((name) =>
    name === "-" ? { path: "-", stream: io.stdin } : { path: resolvePath(io.cwd, name), name }
  );
}

/** A progress line on standard error, redrawn at most every 100 ms. */
function progressLine(io: CliIo) {
  let last = 0;
  let shown = false;
  return {
    update(progress: IngestProgress): void {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      void io.stderr(
        `\r\x1b[2Kingest: ${
          printable(progress.file)
        }: ${progress.read} events, ${progress.added} new, ${progress.duplicates} duplicates, ${progress.bad} bad lines`,
      );
    },
    async clear(): Promise<void> {
      if (shown) await io.stderr("\r\x1b[2K");
    },
  };
}

async function printReport(
  io: CliIo,
  store: EventStore,
  report: IngestReport,
  json: boolean,
): Promise<void> {
  const stored = await store.stats();
  if (json) {
    const document = {
      store: store.location,
      ...report,
      stored_events: stored.events,
      stored_sessions: stored.sessions,
    };
    await io.stdout(`${JSON.stringify(document, null, 2)}\n`);
    return;
  }
  for (const bad of report.bad.slice(0, BAD_LINES_SHOWN)) {
    await io.stderr(`${printable(bad.file)}:${bad.line}: ${printable(bad.reason)}\n`);
  }
  if (report.bad_total > BAD_LINES_SHOWN) {
    await io.stderr(
      `... ${report.bad_total - BAD_LINES_SHOWN} more bad lines (--json lists them)\n`,
    );
  }
  const files = report.files === 1 ? "1 file" : `${report.files} files`;
  await io.stdout(
    `${files}: ${report.read} events read, ${report.added} added, ${report.duplicates} duplicates` +
      `, ${report.skipped} lines without an event, ${report.bad_total} bad lines\n` +
      `${printable(store.location)}: ${stored.events} events in ${stored.sessions} sessions\n`,
  );
}
