import { resolve } from "node:path";
import { errorMessage, SynError, UsageError } from "../core/mod.ts";
import {
  createLanguageModel,
  type ProviderName,
  PROVIDERS,
  resolveModelConfig,
} from "../llm/mod.ts";
import {
  type ChainSample,
  checkSynthesizedTool,
  type EventStore,
  type IngestReport,
  InsufficientDataError,
  loadSynthesizeConfig,
  mineChains,
  type MinedChain,
  type MiningSession,
  openEventStore,
  type RegistryEntry,
  retrieveSamples,
  savingsReport,
  type SkippedEntry,
  SynthesisError,
  type SynthesizeConfig,
  synthesizeDeterministic,
  SynthesizedRegistry,
  type SynthesizedTool,
  synthesizeWithModel,
  validateByReplay,
  type ValidationResult,
} from "../synthesize/mod.ts";
import {
  baselineRegistry,
  compositeProblems,
  compositeToolDescriptor,
  type ToolResult,
  ToolSession,
} from "../tools/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";

/** What the synthesize command shares with its subcommands. */
export interface SynthesizeHelpers {
  help: string;
  stateDirectory(io: CliIo, flag: string | undefined): string;
  printable(text: string): string;
}

const COMMON = {
  "state-dir": { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
} as const;

async function configOf(io: CliIo, flag: string | undefined): Promise<SynthesizeConfig> {
  return await loadSynthesizeConfig(resolve(io.cwd, flag ?? "syn.jsonc"), {
    explicit: flag !== undefined,
  });
}

/** The chains to synthesize: the one named (`a>b`), else the top N of length 2 or more. */
function pickChains(chains: MinedChain[], named: string | undefined, top: number): MinedChain[] {
  const long = chains.filter((chain) => chain.tools.length >= 2);
  if (named === undefined) return long.slice(0, top);
  const found = long.find((chain) => chain.chain === named);
  if (!found) {
    throw new UsageError(`no mined chain ${named} (see 'syn synthesize mine'; tools joined by >)`);
  }
  return [found];
}

/** Who writes the tools: the offline synthesizer, or a provider through `lib/llm`. */
export interface SynthesisEngine {
  name: string;
  write(chain: MinedChain, samples: ChainSample[]): Promise<SynthesizedTool>;
}

/**
 * The engine `--engine` names. A provider runs in mock mode (its canned answer is the
 * offline synthesizer's tool) unless LABS_EXTERNAL_LIVE=1 and its key are set.
 */
export function synthesisEngine(
  name: string,
  io: CliIo,
  config: SynthesizeConfig,
  flags: { model?: string; endpoint?: string },
): SynthesisEngine {
  const maxParallelSteps = config.synthesis.max_parallel_steps;
  const offline = async (chain: MinedChain, samples: ChainSample[]) => {
    const tool = synthesizeDeterministic(chain, samples, { maxParallelSteps });
    const problems = await checkSynthesizedTool(tool, chain.tools);
    if (problems.length) {
      throw new SynthesisError(`${chain.chain}: the tool fails its checks`, problems);
    }
    return tool;
  };
  if (name === "deterministic") return { name, write: offline };
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw new UsageError(`--engine takes deterministic, ${PROVIDERS.join(", ")}: ${name}`);
  }
  let modelConfig;
  try {
    modelConfig = resolveModelConfig(name as ProviderName, { config: io.config, flags });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  // The spec's `llm` keys: per-request timeout, retries and their backoff.
  const llm = config.llm;
  const totalMs = llm.timeout_seconds * 1000;
  modelConfig = {
    ...modelConfig,
    maxRetries: llm.max_retries,
    timeouts: {
      totalMs,
      connectMs: Math.min(modelConfig.timeouts.connectMs, totalMs),
      readMs: Math.min(Math.max(modelConfig.timeouts.readMs, totalMs), totalMs),
    },
  };
  const backoff = {
    baseMs: llm.backoff_base_ms,
    factor: llm.backoff_factor,
    capMs: Math.max(llm.backoff_base_ms, 60_000),
    jitter: 0.2,
  };
  return {
    name,
    write: (chain, samples) => {
      const model = createLanguageModel(modelConfig, {
        mock: () => synthesizeDeterministic(chain, samples, { maxParallelSteps }),
        backoff,
      });
      return synthesizeWithModel(model, chain, samples, {
        maxParallelSteps,
        maxRetriesOnInvalid: config.synthesis.max_retries_on_invalid,
      });
    },
  };
}

/** Writes, checks and stores (as DRAFT) a composite for each chain. */
export async function synthesizeChains(
  store: EventStore,
  registry: SynthesizedRegistry,
  chains: readonly MinedChain[],
  engine: SynthesisEngine,
): Promise<RegistryEntry[]> {
  const written: RegistryEntry[] = [];
  for (const chain of chains) {
    const samples = await retrieveSamples(store, chain);
    written.push(await registry.saveDraft(await engine.write(chain, samples), engine.name));
  }
  return written;
}

/** Validates a stored tool and moves it on; `undefined` when too few sessions hold its chain. */
export async function validateStored(
  store: EventStore,
  registry: SynthesizedRegistry,
  entry: RegistryEntry,
  config: SynthesizeConfig,
  execute?: (args: Record<string, unknown>) => Promise<ToolResult>,
): Promise<{ result: ValidationResult; status: string } | { insufficient: string }> {
  try {
    const result = await validateByReplay(store, entry.tool, config.validation, Date.now, execute);
    const saved = await registry.recordValidation(
      entry.tool.tool_id,
      result,
      config.synthesis.require_approval,
    );
    return { result, status: saved.status };
  } catch (error) {
    if (error instanceof InsufficientDataError) return { insufficient: error.message };
    throw error;
  }
}

/** `syn synthesize run`: writes a composite tool for chains, checked, stored as DRAFT. */
export async function runSynthesis(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize run", args, {
    ...COMMON,
    top: { type: "string" },
    engine: { type: "string" },
    model: { type: "string" },
    endpoint: { type: "string" },
    "min-support": { type: "string" },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length > 1) throw new UsageError("name one chain, or use --top N");
  const top = numberFlag("top", values.top, { integer: true, min: 1, max: 1000 }) ?? 1;
  const config = await configOf(io, values.config);
  const engine = synthesisEngine(values.engine ?? "deterministic", io, config, {
    model: values.model,
    endpoint: values.endpoint,
  });
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  await using store = await openEventStore(stateDir, io.config.eventStore);
  const sessions: MiningSession[] = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  if (!sessions.length) {
    throw new UsageError(`no events in ${store.location}: run 'syn synthesize ingest' first`);
  }
  const minSupport = numberFlag("min-support", values["min-support"], { min: 0, max: 1 }) ?? 0;
  const chains = pickChains(
    mineChains(sessions, { minSupport, minLength: 2 }),
    positionals[0],
    top,
  );
  const registry = new SynthesizedRegistry(stateDir);
  const written = await synthesizeChains(store, registry, chains, engine);
  if (!values.json) {
    for (const [index, entry] of written.entries()) {
      await io.stdout(
        `DRAFT  ${entry.tool.tool_id}  (${chains[index].chain}, ` +
          `${entry.tool.internal_wiring.length} wire(s))\n`,
      );
    }
  }
  if (values.json) {
    await io.stdout(`${JSON.stringify({ registry: registry.folder, tools: written }, null, 2)}\n`);
  } else {
    await io.stderr(`synthesize: next, 'syn synthesize validate <tool-id>'\n`);
  }
  return EXIT.ok;
}

function describeValidation(result: ValidationResult, status: string): string {
  const { equivalence: eq, wiring } = result;
  return [
    `${result.tool_id}: ${result.passed ? "passed" : "failed"} → ${status}`,
    `  sessions      ${result.sessions.length} (newest first)`,
    `  equivalence   mean ${eq.mean_similarity.toFixed(3)}, min ${
      eq.min_similarity.toFixed(3)
    } (${eq.method}, threshold ${eq.threshold})`,
    ...(result.evidence === "replay"
      ? [
        "                replay only: where the steps are called as recorded, the recorded",
        "                output is replayed, so this scores the calls, not the outputs",
        "                (--execute runs the composite)",
      ]
      : []),
    `  wiring        ${wiring.held} of ${wiring.checked} wired values held`,
    `  latency       ${describeLatency(result.latency)}`,
    ...(result.execution
      ? [
        `  executed      mean ${result.execution.mean_similarity.toFixed(3)}, min ${
          result.execution.min_similarity.toFixed(3)
        } over ${result.execution.sessions} runs in the sandbox (${result.execution.failures.length} failed)`,
      ]
      : []),
    `  error parity  ${
      result.error_parity ? "yes" : `no: ${result.unhandled_failures.length} unhandled failure(s)`
    }`,
    ...result.reasons.map((reason) => `  reason        ${reason}`),
    "",
  ].join("\n");
}

function describeLatency(latency: ValidationResult["latency"]): string {
  if (!latency.recorded) return "no latency recorded (every replayed step has 0 ms): not compared";
  return `${latency.composite_ms} ms vs ${latency.original_ms} ms recorded: ratio ${
    latency.ratio.toFixed(3)
  } (max ${latency.max})`;
}

/** What a pipeline line adds after a tool's status: how much its validation can show. */
function evidenceNote(result: ValidationResult): string {
  const notes = [
    ...(result.evidence === "replay" ? ["replay only"] : []),
    ...(result.latency.recorded ? [] : ["no latency recorded"]),
  ];
  return notes.length ? ` [${notes.join(", ")}]` : "";
}

/** A tool session in `root` that runs this (not yet promoted) composite, for `--execute`. */
async function compositeExecutor(tool: SynthesizedTool, root: string, granted: string[]) {
  const tools = await baselineRegistry();
  const problems = compositeProblems(tool, (name) => tools.get(name) !== undefined);
  if (problems.length) {
    throw new UsageError(`cannot execute ${tool.tool_id}: ${problems.join("; ")}`);
  }
  const descriptor = compositeToolDescriptor(tool);
  await tools.register(descriptor);
  const session = await ToolSession.open({ root, registry: tools, granted });
  return {
    run: (args: Record<string, unknown>) =>
      session.call({ id: crypto.randomUUID(), tool: descriptor.name, args }),
    [Symbol.asyncDispose]: async () => await session.close(),
  };
}

/** `syn synthesize validate <tool-id>`: replay, store the result, move the tool on. */
export async function validateTool(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize validate", args, {
    ...COMMON,
    execute: { type: "boolean" },
    root: { type: "string" },
    grant: { type: "string", multiple: true },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length !== 1) {
    throw new UsageError("name the tool to validate (see 'syn synthesize list')");
  }
  if (values.execute && !values.root) {
    throw new UsageError("--execute runs the composite in the sandbox: give its --root DIR");
  }
  const config = await configOf(io, values.config);
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  const registry = new SynthesizedRegistry(stateDir);
  const entry = await registry.get(positionals[0]);
  if (!entry) throw new UsageError(`no synthesized tool ${helpers.printable(positionals[0])}`);
  await using store = await openEventStore(stateDir, io.config.eventStore);
  await using executor = values.execute
    ? await compositeExecutor(entry.tool, resolve(io.cwd, values.root!), values.grant ?? [])
    : undefined;
  const outcome = await validateStored(store, registry, entry, config, executor?.run);
  if ("insufficient" in outcome) {
    await io.stderr(`synthesize validate: ${entry.tool.tool_id}: ${outcome.insufficient}\n`);
    return EXIT.failure;
  }
  const { result, status } = outcome;
  await io.stdout(
    values.json
      ? `${JSON.stringify({ status, validation: result }, null, 2)}\n`
      : describeValidation(result, status),
  );
  return result.passed ? EXIT.ok : EXIT.failure;
}

/** `syn synthesize approve <tool-id> --promote`. */
export async function approveTool(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize approve", args, {
    ...COMMON,
    promote: { type: "boolean" },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError("name the tool to approve");
  if (!values.promote) throw new UsageError("say --promote to promote the tool");
  const registry = new SynthesizedRegistry(helpers.stateDirectory(io, values["state-dir"]));
  try {
    const entry = await registry.promote(positionals[0]);
    await io.stdout(
      values.json ? `${JSON.stringify(entry, null, 2)}\n` : `PROMOTED  ${entry.tool.tool_id}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof SynError) || error.code === "internal_error") throw error;
    if (error.code === "not_found") throw new UsageError(error.message);
    await io.stderr(`synthesize approve: refused: ${helpers.printable(error.message)}\n`);
    return EXIT.failure;
  }
}

/** `syn synthesize list`: every synthesized tool with its status. */
export async function listTools(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize list", args, COMMON);
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length) {
    throw new UsageError(`unexpected argument: ${helpers.printable(positionals[0])}`);
  }
  const registry = new SynthesizedRegistry(helpers.stateDirectory(io, values["state-dir"]));
  const skipped: SkippedEntry[] = [];
  const entries = await registry.list((entry) => skipped.push(entry));
  for (const entry of skipped) {
    await io.stderr(
      `synthesize list: skipped ${helpers.printable(entry.file)}: ${
        helpers.printable(entry.problems.slice(0, 3).join("; "))
      }\n`,
    );
  }
  if (values.json) {
    await io.stdout(`${JSON.stringify({ registry: registry.folder, tools: entries }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (!entries.length) {
    await io.stdout(
      `no synthesized tools in ${
        helpers.printable(registry.folder)
      } ('syn synthesize run' writes some)\n`,
    );
    return EXIT.ok;
  }
  for (const entry of entries) await io.stdout(`${helpers.printable(listLine(entry))}\n`);
  return EXIT.ok;
}

/** One line of `syn synthesize list` (the caller makes it printable). */
function listLine(entry: RegistryEntry): string {
  const validation = entry.validation
    ? `${entry.validation.passed ? "passed" : "failed"} ${entry.validation.validated_at}`
    : "not validated";
  return `${entry.status.padEnd(8)}  ${entry.tool.tool_id}  (${
    entry.tool.source_chain.tools.join(">")
  }; ${validation})`;
}

/** `syn synthesize report`: calls and LLM round trips the composites would have saved. */
export async function reportSavings(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize report", args, {
    ...COMMON,
    "include-testing": { type: "boolean" },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length) {
    throw new UsageError(`unexpected argument: ${helpers.printable(positionals[0])}`);
  }
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  const wanted = values["include-testing"] ? ["PROMOTED", "TESTING"] : ["PROMOTED"];
  const tools = (await new SynthesizedRegistry(stateDir).list())
    .filter((entry) => wanted.includes(entry.status))
    .map((entry) => ({ tool_id: entry.tool.tool_id, chain: entry.tool.source_chain.tools }));
  await using store = await openEventStore(stateDir, io.config.eventStore);
  const sessions: MiningSession[] = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  const report = savingsReport(sessions, tools);
  if (values.json) {
    await io.stdout(
      `${JSON.stringify({ store: store.location, statuses: wanted, ...report }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const lines = [
    `${tools.length} composite(s) (${
      wanted.join(", ")
    }) on ${report.sessions} sessions, ${report.calls} tool calls`,
    ...report.rows.map((row) =>
      `  ${String(row.calls_saved).padStart(6)} calls saved  ${
        String(row.occurrences).padStart(5)
      } runs in ${String(row.sessions).padStart(5)} sessions  ${row.tool_id}`
    ),
    `total: ${report.calls_saved} of ${report.calls} tool calls and as many LLM round trips ` +
    `(${(report.share_saved * 100).toFixed(1)} %)`,
    "",
  ];
  await io.stdout(lines.join("\n"));
  return EXIT.ok;
}

/**
 * `syn synthesize` alone: ingest (the `--ingest` inputs, if any) → mine → synthesize the
 * top chains → validate each → TESTING or PROMOTED (or DRAFT), a progress line per stage
 * on stderr and a summary.
 */
export async function runPipeline(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers & {
    ingest(args: string[], io: CliIo): Promise<{ code: number; report?: IngestReport }>;
  },
): Promise<number> {
  const { values, positionals } = parseCommandArgs("synthesize", args, {
    ...COMMON,
    ingest: { type: "string", multiple: true },
    format: { type: "string" },
    top: { type: "string" },
    "min-support": { type: "string" },
  });
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
  const sessions: MiningSession[] = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  if (!sessions.length) {
    throw new UsageError(
      `no events in ${store.location}: give --ingest FILE or run 'syn synthesize ingest'`,
    );
  }
  const chains = pickChains(mineChains(sessions, { minSupport, minLength: 2 }), undefined, top);
  await stage(`mine: ${sessions.length} sessions, ${chains.length} chain(s) taken`);
  const registry = new SynthesizedRegistry(stateDir);
  const engine = synthesisEngine("deterministic", io, config, {});
  const written = await synthesizeChains(store, registry, chains, engine);
  await stage(`synthesize: ${written.length} tool(s) written`);
  const summary = await validateWritten(store, registry, written, config, stage);
  if (values.json) {
    await io.stdout(`${JSON.stringify({ store: store.location, tools: summary }, null, 2)}\n`);
  } else {
    await io.stdout(summaryText(summary));
  }
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

interface PipelineRow {
  tool_id: string;
  status: string;
  passed: boolean;
  /** `replay` (recorded values only) or `execution`; null when the tool was not validated. */
  evidence: ValidationResult["evidence"] | null;
  /** Whether the replayed sessions recorded any latency; null when not validated. */
  latency_recorded: boolean | null;
  reason: string | null;
}

/** Validates each written tool, a stage line per tool. */
async function validateWritten(
  store: EventStore,
  registry: SynthesizedRegistry,
  written: readonly RegistryEntry[],
  config: SynthesizeConfig,
  stage: (line: string) => void | Promise<void>,
): Promise<PipelineRow[]> {
  const summary: PipelineRow[] = [];
  for (const entry of written) {
    const outcome = await validateStored(store, registry, entry, config);
    const tool_id = entry.tool.tool_id;
    const row: PipelineRow = "insufficient" in outcome
      ? {
        tool_id,
        status: "DRAFT",
        passed: false,
        evidence: null,
        latency_recorded: null,
        reason: outcome.insufficient,
      }
      : {
        tool_id,
        status: outcome.status,
        passed: outcome.result.passed,
        evidence: outcome.result.evidence,
        latency_recorded: outcome.result.latency.recorded,
        reason: outcome.result.reasons.join("; ") || null,
      };
    summary.push(row);
    const note = "insufficient" in outcome ? "" : evidenceNote(outcome.result);
    await stage(
      `validate: ${tool_id}: ${row.status}${note}${row.reason ? ` (${row.reason})` : ""}`,
    );
  }
  return summary;
}

function summaryText(summary: readonly PipelineRow[]): string {
  const counts = ["PROMOTED", "TESTING", "DRAFT"].map((status) =>
    `${summary.filter((row) => row.status === status).length} ${status}`
  );
  const lines = [`${summary.length} tool(s): ${counts.join(", ")}`];
  if (summary.some((row) => row.evidence === "replay")) {
    lines.push(
      "validated by replay only: recorded outputs reproduce by construction " +
        "('syn synthesize validate <tool-id> --execute' runs a composite)",
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
