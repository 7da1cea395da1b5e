/**
 * The body of `syn generate`, loaded once the validator has been started (see
 * `generate.ts`): configuration, the runs, the report, `--preview`.
 */
import { redactValue, sweepTemporaries, systemClock, UsageError } from "../core/mod.ts";
import {
  createExternalGenerator,
  type ExternalEngineName,
  type GenerateConfig,
  type GenerationDeps,
  type GenerationOutcome,
  LabsLog,
  resolveGenerateConfig,
  runBatch,
  runGeneration,
} from "../generate/mod.ts";
import type { CountedValidator } from "../mcp/mod.ts";
import { numberFlag } from "./args.ts";
import type { GenerateArgs } from "./_generate_args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { storeFromEnv } from "./_schema_store.ts";
import { Interruption } from "./_stop_signals.ts";

/** What `generate.ts` hands over: the world, its stderr line writer, the validator being opened. */
export interface GenerateStart {
  io: CliIo;
  say: (line: string) => void | Promise<void>;
  opening: Promise<CountedValidator>;
}

function summaryOf(outcome: GenerationOutcome) {
  const { asset: _asset, ...rest } = outcome;
  return rest;
}

type Values = GenerateArgs["values"];

function configFrom(values: Values, io: CliIo): GenerateConfig {
  return resolveGenerateConfig({
    engine: values.engine,
    seed: numberFlag("seed", values.seed, {
      integer: true,
      min: Number.MIN_SAFE_INTEGER,
      max: Number.MAX_SAFE_INTEGER,
    }),
    temperature: numberFlag("temperature", values.temperature, { min: 0, max: 2 }),
    timeoutS: numberFlag("timeout-s", values["timeout-s"], { min: 0.001, max: 3600 }),
    strict: values.strict,
    relaxed: values.relaxed,
    out: values.out,
    logDir: values["log-dir"],
    concurrency: numberFlag("concurrency", values.concurrency, { integer: true, min: 1, max: 64 }),
  }, { config: io.config, cwd: io.cwd });
}

/**
 * The generator of a provider engine. The model layer is imported here, by a computed
 * specifier, so the deterministic engine never loads it (see `createExternalGenerator`).
 */
async function externalGenerator(engine: ExternalEngineName, values: Values, io: CliIo) {
  const { resolveModelConfig }: typeof import("../llm/mod.ts") = await import(
    new URL("../llm/mod.ts", import.meta.url).href
  );
  const model = resolveModelConfig(engine, {
    flags: { endpoint: values.endpoint, model: values.model },
    config: io.config,
  });
  return await createExternalGenerator(engine, model);
}

/** What a run needs besides the prompts: dependencies, output and the secrets to mask. */
interface Session {
  config: GenerateConfig;
  deps: GenerationDeps;
  validator: CountedValidator;
  secrets: readonly string[];
  say: (line: string) => void | Promise<void>;
  io: CliIo;
}

async function runOne(prompt: string, session: Session): Promise<GenerationOutcome[]> {
  const { config, deps, validator, secrets, say, io } = session;
  // Interrupted before it started: there is no run to log.
  if (deps.signal?.aborted) return [];
  const outcome = await runGeneration(prompt, config, deps);
  if (outcome.ok) await say(`syn generate: wrote ${outcome.asset_path}\n`);
  else {
    const label = outcome.severity === "warning" ? "warning" : "error";
    const kept = outcome.asset ? " (asset not written)" : "";
    await say(
      `syn generate: ${label}: ${outcome.failure?.reason}: ${outcome.failure?.detail}${kept}\n`,
    );
  }
  const report = {
    ...summaryOf(outcome),
    validator: { transport: validator.transport, calls: validator.calls },
    log_dir: config.logDir,
  };
  await io.stdout(JSON.stringify(redactValue(report, secrets), null, 2) + "\n");
  return [outcome];
}

async function runMany(prompts: string[], session: Session): Promise<GenerationOutcome[]> {
  const { config, deps, validator, secrets, say, io } = session;
  const started = systemClock.now();
  const counts = { ok: 0, invalid: 0, failed: 0 };
  const outcomes = await runBatch(prompts, config, deps, {
    concurrency: config.concurrency,
    onProgress: async (done, total, outcome) => {
      counts[outcome.status]++;
      if (io.stderrIsTerminal) {
        await say(
          `\r[${done}/${total}] ok ${counts.ok} · invalid ${counts.invalid} · failed ${counts.failed}` +
            (done === total ? "\n" : ""),
        );
      }
    },
  });
  const seconds = Math.max(0.001, (systemClock.now() - started) / 1000);
  const interrupted = deps.signal?.aborted === true;
  const notRun = prompts.length - outcomes.length;
  const summary = {
    total: outcomes.length,
    ...counts,
    ...(interrupted ? { not_run: notRun } : {}),
    duration_ms: Math.round(seconds * 1000),
    assets_per_s: Math.round((counts.ok / seconds) * 10) / 10,
  };
  const stopped = interrupted ? `interrupted: ${notRun} not run; ` : "";
  await say(
    `syn generate: ${stopped}${summary.total} prompt${
      summary.total === 1 ? "" : "s"
    }: ${counts.ok} ok, ${counts.invalid} invalid, ${counts.failed} failed\n`,
  );
  const report = {
    ok: !interrupted && counts.ok === outcomes.length,
    ...(interrupted ? { interrupted: true } : {}),
    engine: config.engine,
    strict: config.strict,
    summary,
    validator: { transport: validator.transport, calls: validator.calls },
    log_dir: config.logDir,
    results: outcomes.map((outcome) => ({
      prompt: outcome.prompt,
      ok: outcome.ok,
      status: outcome.status,
      trace_id: outcome.trace_id,
      asset_path: outcome.asset_path,
      failure: outcome.failure,
    })),
  };
  await io.stdout(JSON.stringify(redactValue(report, secrets), null, 2) + "\n");
  return outcomes;
}

/** `--preview`: serves the written assets' preview page until Ctrl-C. */
async function previewOutcomes(io: CliIo, outcomes: GenerationOutcome[]): Promise<void> {
  const written = outcomes.filter((outcome) => outcome.ok && outcome.asset !== undefined);
  if (!written.length) {
    await io.stderr("syn generate: nothing to preview: no asset was written\n");
    return;
  }
  // By computed specifiers: the preview's graph holds playwright-core, which a literal import
  // would make every `generate` resolve before it starts (`deno compile` embeds both through
  // the preview command's graph).
  const [{ previewDocument }, { servePreview }]: [
    typeof import("../preview/mod.ts"),
    typeof import("./_preview_serve.ts"),
  ] = await Promise.all([
    import(new URL("../preview/mod.ts", import.meta.url).href),
    import(new URL("./_preview_serve.ts", import.meta.url).href),
  ]);
  const store = await storeFromEnv(io);
  const documents = written.map((outcome) =>
    previewDocument(store, outcome.asset_path ?? outcome.trace_id, outcome.asset)
  );
  await servePreview(io, documents, { port: 0, open: false, announce: "stderr" });
}

/** Runs the prompts against the validator `start.opening` gives, and closes it. */
export async function runGenerate(
  { values }: GenerateArgs,
  prompts: string[],
  start: GenerateStart,
): Promise<number> {
  let outcomes: GenerationOutcome[];
  using interruption = new Interruption();
  try {
    outcomes = await generateAll(values, prompts, start, interruption.controller.signal);
  } catch (error) {
    // A validator child stopped by the same Ctrl-C fails its start: that is the interruption.
    if (!interruption.interrupted) throw error;
    outcomes = [];
  } finally {
    // Opened before anything here could fail: closed whatever happened (a usage error
    // included), and a configuration error of its own has been reported by then.
    await (await start.opening.catch(() => undefined))?.close();
  }
  if (interruption.interrupted) {
    await start.say(`syn generate: interrupted by ${interruption.signal}\n`);
    return interruption.exitCode;
  }
  if (values.preview) await previewOutcomes(start.io, outcomes);
  return outcomes.some((outcome) => outcome.exit_code !== 0) ? EXIT.failure : EXIT.ok;
}

async function generateAll(
  values: Values,
  prompts: string[],
  { io, say, opening }: GenerateStart,
  signal: AbortSignal,
): Promise<GenerationOutcome[]> {
  const config = configFrom(values, io);
  if (config.engine === "deterministic" && (values.endpoint || values.model)) {
    throw new UsageError("--endpoint and --model apply to gemini, openai and anthropic only");
  }
  const secrets = io.config.secrets;
  const external = config.engine === "deterministic"
    ? undefined
    : await externalGenerator(config.engine as ExternalEngineName, values, io);
  const log = new LabsLog(config.logDir, secrets);
  await log.prepare();
  // A run killed while writing leaves a staged temporary; the next run clears it.
  await sweepTemporaries(config.outDir);
  const validator = await opening;
  const deps = {
    validator,
    log,
    clock: systemClock,
    newTraceId: () => crypto.randomUUID(),
    external,
    signal,
  };
  const session: Session = { config, deps, validator, secrets, say, io };
  return values.batch === undefined
    ? await runOne(prompts[0], session)
    : await runMany(prompts, session);
}
