import { UsageError } from "../core/mod.ts";
import {
  type IngestReport,
  openEventStore,
  type PipelineRow,
  type PipelineStage,
  readSessionOrigins,
  synthesisPipeline,
  SynthesizedRegistry,
} from "../synthesize/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import {
  checkExecutionFlags,
  commandAfterDashes,
  COMMON,
  configOf,
  EXECUTION_FLAGS,
  openExecution,
  type SynthesizeHelpers,
} from "./_synthesize_tools.ts";
import { type CliIo, EXIT } from "./io.ts";

/** The ingest subcommand, run quietly by the pipeline for its `--ingest` inputs. */
export type IngestCommand = (
  args: string[],
  io: CliIo,
) => Promise<{ code: number; report?: IngestReport }>;

/**
 * `syn synthesize` alone: ingest (the `--ingest` inputs, if any) → mine → synthesize the
 * top chains → validate each → TESTING or PROMOTED (or DRAFT), a progress line per stage
 * on stderr and a summary.
 */
export async function runPipeline(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers & { ingest: IngestCommand },
): Promise<number> {
  const { values, positionals: all } = parseCommandArgs("synthesize", args, {
    ...COMMON,
    ...EXECUTION_FLAGS,
    ingest: { type: "string", multiple: true },
    format: { type: "string" },
    top: { type: "string" },
    "min-support": { type: "string" },
  });
  const { command, positionals } = commandAfterDashes(args, all);
  checkExecutionFlags(values, command);
  if (positionals.length) {
    throw new UsageError(`unknown synthesize subcommand: ${helpers.printable(positionals[0])}`);
  }
  const top = numberFlag("top", values.top, { integer: true, min: 1, max: 1000 }) ?? 3;
  const minSupport = numberFlag("min-support", values["min-support"], { min: 0, max: 1 }) ?? 0;
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  const config = await configOf(io, values.config);
  const stage = (line: string) => io.stderr(`synthesize: ${line}\n`);
  if (values.ingest?.length) {
    const ingestArgs = [...values.ingest, "--state-dir", stateDir, "--json"];
    if (values.format) ingestArgs.push("--format", values.format);
    const quiet = { ...io, stdout: () => {} };
    const { report } = await helpers.ingest(ingestArgs, quiet);
    if (report) await stage(`ingest: ${describeIngest(report, values.ingest.length)}`);
  }
  await using store = await openEventStore(stateDir, io.config.eventStore);
  const rows = await synthesisPipeline(store, new SynthesizedRegistry(stateDir), {
    config,
    top,
    minSupport,
    emptyHint: "give --ingest FILE or run 'syn synthesize ingest'",
    onStage: (progress) => stage(stageLine(progress)),
    origins: await readSessionOrigins(stateDir),
    execution: (entry) =>
      openExecution(io, entry.tool, { values, command, stateDir, say: "synthesize" }),
    allowReplayOnly: values["allow-replay-only"],
  });
  await io.stdout(
    values.json
      ? `${JSON.stringify({ store: store.location, tools: rows }, null, 2)}\n`
      : summaryText(rows),
  );
  return EXIT.ok;
}

/** The pipeline's ingest line: what was read and what became of it. */
function describeIngest(report: IngestReport, inputs: number): string {
  const bad = report.bad_total
    ? `, ${report.bad_total} bad lines ('syn synthesize ingest' lists them)`
    : "";
  return `${report.read} events from ${inputs} input(s): ${report.added} added, ` +
    `${report.duplicates} duplicates${bad}`;
}

/** A progress line (after "synthesize: ") for one stage of the pipeline. */
function stageLine(progress: PipelineStage): string {
  switch (progress.stage) {
    case "mine":
      return `mine: ${progress.sessions} sessions, ${progress.chains} chain(s) taken`;
    case "synthesize":
      // The line's prefix already says "synthesize: ".
      return `${progress.written} tool(s) written`;
    case "validate": {
      const { row } = progress;
      const reason = row.reason ? ` (${row.reason})` : "";
      return `validate: ${row.tool_id}: ${row.status}${evidenceNote(row)}${reason}`;
    }
  }
}

/** What a pipeline line adds after a tool's status: how much its validation can show. */
function evidenceNote(row: PipelineRow): string {
  const notes = [
    ...(row.evidence === "replay" ? ["replay only"] : []),
    ...(row.latency_recorded === false ? ["no latency recorded"] : []),
  ];
  return notes.length ? ` [${notes.join(", ")}]` : "";
}

function summaryText(summary: readonly PipelineRow[]): string {
  const counts = ["PROMOTED", "TESTING", "DRAFT"].map((status) =>
    `${summary.filter((row) => row.status === status).length} ${status}`
  );
  const lines = [`${summary.length} tool(s): ${counts.join(", ")}`];
  if (summary.some((row) => row.evidence === "replay")) {
    lines.push(
      "validated by replay only, never executed: not promoted " +
        "(--execute --fresh-upstream runs each composite in fresh upstreams; " +
        "--allow-replay-only accepts replay by name)",
    );
  }
  if (summary.some((row) => row.latency_recorded === false)) {
    lines.push("no latency recorded in the replayed sessions: latency was not compared");
  }
  if (summary.some((row) => row.status === "TESTING")) {
    lines.push("approve with: syn synthesize approve <tool-id> --promote");
  }
  return `${lines.join("\n")}\n`;
}
