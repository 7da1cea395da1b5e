import { resolvePath, SynError, UsageError } from "../core/mod.ts";
import {
  DEFAULT_FRESH_JOBS,
  type ExecutionScore,
  type FreshExecutionScore,
  loadSynthesizeConfig,
  openEventStore,
  openSandboxWorlds,
  type PipelineExecution,
  readSessionOrigins,
  type RegistryEntry,
  runSynthesis,
  type SkippedEntry,
  storedSavingsReport,
  synthesisEngine,
  type SynthesizeConfig,
  SynthesizedRegistry,
  type SynthesizedTool,
  type ToolStatus,
  validateStored,
  type ValidationResult,
} from "../synthesize/mod.ts";
import { freshUpstreamWorlds, openUpstreamValidation } from "../proxy/mod.ts";
import { upstreamFromFlags } from "./_upstream_flags.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";

/** What the synthesize command shares with its subcommands. */
export interface SynthesizeHelpers {
  help: string;
  stateDirectory(io: CliIo, flag: string | undefined): string;
  printable(text: string): string;
}

export const COMMON = {
  "state-dir": { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The flags that say how a composite is executed while it is validated. */
export const EXECUTION_FLAGS = {
  execute: { type: "boolean" },
  "fresh-upstream": { type: "boolean" },
  jobs: { type: "string" },
  root: { type: "string" },
  grant: { type: "string", multiple: true },
  "shell-without-bubblewrap": { type: "boolean" },
  upstream: { type: "boolean" },
  "upstream-url": { type: "string" },
  "upstream-header": { type: "string", multiple: true },
  "upstream-header-env": { type: "string", multiple: true },
  "upstream-header-file": { type: "string", multiple: true },
  "allow-replay-only": { type: "boolean" },
} as const;

/** The values of `EXECUTION_FLAGS` as parsed. */
export interface ExecutionFlags {
  execute?: boolean;
  "fresh-upstream"?: boolean;
  jobs?: string;
  root?: string;
  grant?: string[];
  "shell-without-bubblewrap"?: boolean;
  upstream?: boolean;
  "upstream-url"?: string;
  "upstream-header"?: string[];
  "upstream-header-env"?: string[];
  "upstream-header-file"?: string[];
}

/** The words after `--` (the upstream's command), and the positionals before them. */
export function commandAfterDashes(
  args: readonly string[],
  positionals: readonly string[],
): { command: string[]; positionals: string[] } {
  const split = args.indexOf("--");
  const command = split < 0 ? [] : args.slice(split + 1);
  return { command, positionals: positionals.slice(0, positionals.length - command.length) };
}

/** Refuses execution flags that do not go together. */
export function checkExecutionFlags(values: ExecutionFlags, command: readonly string[]): void {
  const live = values.upstream || values["upstream-url"] !== undefined;
  if ((live || values["fresh-upstream"] || values.root !== undefined) && !values.execute) {
    throw new UsageError(
      "--fresh-upstream, --root, --upstream and --upstream-url go with --execute",
    );
  }
  if ([live, values["fresh-upstream"], values.root !== undefined].filter(Boolean).length > 1) {
    throw new UsageError(
      "--execute runs in one place: --fresh-upstream, --root DIR, or --upstream/--upstream-url",
    );
  }
  if (command.length && !values.upstream && !values["fresh-upstream"]) {
    throw new UsageError("a command after -- goes with --fresh-upstream or --upstream");
  }
}

/** `syn.jsonc` here, or the file `--config` names (which must then exist). */
export async function configOf(io: CliIo, flag: string | undefined): Promise<SynthesizeConfig> {
  return await loadSynthesizeConfig(resolvePath(io.cwd, flag ?? "syn.jsonc"), {
    explicit: flag !== undefined,
  });
}

/** `syn synthesize run`: writes a composite tool for chains, checked, stored as DRAFT. */
export async function runSynthesisCommand(
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
  const engine = synthesisEngine(values.engine, config, {
    config: io.config,
    model: values.model,
    endpoint: values.endpoint,
  });
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  await using store = await openEventStore(stateDir, io.config.eventStore);
  const minSupport = numberFlag("min-support", values["min-support"], { min: 0, max: 1 }) ?? 0;
  const registry = new SynthesizedRegistry(stateDir);
  const { chains, written } = await runSynthesis(store, registry, {
    engine,
    chain: positionals[0],
    top,
    minSupport,
    origins: await readSessionOrigins(stateDir),
  });
  if (values.json) {
    await io.stdout(`${JSON.stringify({ registry: registry.folder, tools: written }, null, 2)}\n`);
    return written.length ? EXIT.ok : EXIT.failure;
  }
  if (written.length === 0) {
    await io.stderr(
      "synthesize: no tool written: mining found no chain to synthesize " +
        "('syn synthesize mine' shows what the recorded sessions hold)\n",
    );
    return EXIT.failure;
  }
  for (const [index, entry] of written.entries()) {
    await io.stdout(
      `DRAFT  ${entry.tool.tool_id}  (${chains[index].chain}, ` +
        `${entry.tool.internal_wiring.length} wire(s))\n`,
    );
  }
  await io.stderr(`synthesize: next, 'syn synthesize validate <tool-id>'\n`);
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
        "                (--execute runs the composite; promotion needs it)",
      ]
      : []),
    `  wiring        ${wiring.held} of ${wiring.checked} wired values held`,
    `  latency       ${describeLatency(result.latency)}`,
    ...(result.execution ? describeExecution(result.execution) : []),
    `  error parity  ${
      result.error_parity ? "yes" : `no: ${result.unhandled_failures.length} unhandled failure(s)`
    }`,
    ...result.reasons.map((reason) => `  reason        ${reason}`),
    "",
  ].join("\n");
}

function describeExecution(execution: ExecutionScore | FreshExecutionScore): string[] {
  if ("mode" in execution) {
    const { steps, later } = execution;
    return [
      `  executed      mean ${execution.mean_similarity.toFixed(3)}, min ${
        execution.min_similarity.toFixed(3)
      } over ${execution.sessions} sessions ${execution.where} (${execution.failures.length} failed)`,
      `                step outputs equal to the original calls': ${steps.equal} of ${steps.compared}; ` +
      `later outputs equal: ${later.equal} of ${later.compared}`,
      ...execution.failures.slice(0, 3).map((failure) =>
        `                failed ${failure.session_id}: ${failure.error.slice(0, 300)}`
      ),
    ];
  }
  const against = execution.baseline === "rerun"
    ? "vs the original calls re-run"
    : "vs the recorded output";
  return [
    `  executed      mean ${execution.mean_similarity.toFixed(3)}, min ${
      execution.min_similarity.toFixed(3)
    } ${against}, over ${execution.sessions} runs ${execution.where} (${execution.failures.length} failed)`,
    ...(execution.recorded_mean_similarity === undefined ? [] : [
      `                (vs the recorded output: mean ${
        execution.recorded_mean_similarity.toFixed(3)
      })`,
    ]),
  ];
}

function describeLatency(latency: ValidationResult["latency"]): string {
  if (!latency.recorded) return "no latency recorded (every replayed step has 0 ms): not compared";
  return `${latency.composite_ms} ms vs ${latency.original_ms} ms recorded: ratio ${
    latency.ratio.toFixed(3)
  } (max ${latency.max})`;
}

/**
 * How `--execute` runs a composite while it is validated: in fresh upstreams started as each
 * session's was recorded (or from the command after `--`), in fresh copies of `--root` (syn's
 * own tools), or against a live server (`--upstream`/`--upstream-url`, which `lib/proxy`
 * refuses for a chain with a write step). None without `--execute`.
 */
export async function openExecution(
  io: CliIo,
  tool: SynthesizedTool,
  options: { values: ExecutionFlags; command: string[]; stateDir: string; say: string },
): Promise<PipelineExecution | undefined> {
  const { values, command } = options;
  if (!values.execute) return undefined;
  const jobs = numberFlag("jobs", values.jobs, { integer: true, min: 1, max: 16 }) ??
    DEFAULT_FRESH_JOBS;
  const release = { [Symbol.asyncDispose]: async () => {} };
  if (values["fresh-upstream"]) {
    const worlds = freshUpstreamWorlds({
      origins: await readSessionOrigins(options.stateDir),
      command,
      cwd: io.cwd,
      env: io.environment?.(),
      onStart: (session, words) =>
        void io.stderr(
          `${options.say}: ${tool.tool_id}: fresh upstream for ${session}: ${
            words.map((word) => JSON.stringify(word)).join(" ")
          }\n`,
        ),
    });
    return { ...release, fresh: { worlds, jobs } };
  }
  if (values.upstream || values["upstream-url"]) {
    const target = await upstreamFromFlags(values, command, {
      environment: io.environment?.(),
      cwd: io.cwd,
    });
    const upstream = target.kind === "stdio"
      ? { ...target, cwd: io.cwd, env: io.environment?.() }
      : target;
    const opened = await openUpstreamValidation(upstream, tool.source_chain.tools);
    if (opened.refusal) {
      await io.stderr(
        `${options.say}: ${opened.refusal} (--fresh-upstream executes it in fresh upstreams)\n`,
      );
    }
    return opened;
  }
  if (!values.root) {
    throw new UsageError(
      "--execute runs the composite: give --fresh-upstream (fresh copies of the recorded " +
        "MCP servers), --root DIR (syn's tools, in fresh copies of DIR), or " +
        "--upstream -- <command…> / --upstream-url URL (a live server, read-only chains only)",
    );
  }
  const worlds = await openSandboxWorlds(tool, {
    root: resolvePath(io.cwd, values.root),
    granted: values.grant ?? [],
  });
  return { ...release, fresh: { worlds, jobs } };
}

/** `syn synthesize validate <tool-id>`: replay, store the result, move the tool on. */
export async function validateTool(
  args: string[],
  io: CliIo,
  helpers: SynthesizeHelpers,
): Promise<number> {
  const { values, positionals: all } = parseCommandArgs("synthesize validate", args, {
    ...COMMON,
    ...EXECUTION_FLAGS,
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  const { command, positionals } = commandAfterDashes(args, all);
  if (positionals.length !== 1) {
    throw new UsageError("name the tool to validate (see 'syn synthesize list')");
  }
  checkExecutionFlags(values, command);
  const config = await configOf(io, values.config);
  const stateDir = helpers.stateDirectory(io, values["state-dir"]);
  const registry = new SynthesizedRegistry(stateDir);
  const entry = await registry.get(positionals[0]);
  if (!entry) throw new UsageError(`no synthesized tool ${helpers.printable(positionals[0])}`);
  await using store = await openEventStore(stateDir, io.config.eventStore);
  await using execution = await openExecution(io, entry.tool, {
    values,
    command,
    stateDir,
    say: "synthesize validate",
  });
  const outcome = await validateStored(store, registry, {
    entry,
    config,
    target: execution?.target,
    fresh: execution?.fresh,
    allowReplayOnly: values["allow-replay-only"],
  });
  if ("insufficient" in outcome) {
    await io.stderr(`synthesize validate: ${entry.tool.tool_id}: ${outcome.insufficient}\n`);
    if (values.json) {
      const said = { tool_id: entry.tool.tool_id, status: entry.status, validation: null };
      await io.stdout(
        `${JSON.stringify({ ...said, insufficient: outcome.insufficient }, null, 2)}\n`,
      );
    }
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
    "allow-replay-only": { type: "boolean" },
  });
  if (values.help) return await io.stdout(helpers.help), EXIT.ok;
  if (positionals.length !== 1) throw new UsageError("name the tool to approve");
  if (!values.promote) throw new UsageError("say --promote to promote the tool");
  const registry = new SynthesizedRegistry(helpers.stateDirectory(io, values["state-dir"]));
  try {
    const entry = await registry.promote(positionals[0], {
      allowReplayOnly: values["allow-replay-only"],
    });
    const note = entry.replay_only ? "  (replay only: never executed)" : "";
    await io.stdout(
      values.json
        ? `${JSON.stringify(entry, null, 2)}\n`
        : `PROMOTED  ${entry.tool.tool_id}${note}\n`,
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
    ? `${
      entry.validation.passed ? "passed" : "failed"
    } on ${entry.validation.evidence} ${entry.validation.validated_at}${
      entry.replay_only ? ", promoted on replay only" : ""
    }`
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
  const wanted: ToolStatus[] = values["include-testing"] ? ["PROMOTED", "TESTING"] : ["PROMOTED"];
  const registry = new SynthesizedRegistry(stateDir);
  await using store = await openEventStore(stateDir, io.config.eventStore);
  const { composites, report } = await storedSavingsReport(store, registry, { statuses: wanted });
  if (values.json) {
    await io.stdout(
      `${JSON.stringify({ store: store.location, statuses: wanted, ...report }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const lines = [
    `${composites} composite(s) (${
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
