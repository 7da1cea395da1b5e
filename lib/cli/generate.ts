import {
  errorMessage,
  redactValue,
  resolvePath,
  sweepTemporaries,
  systemClock,
  UsageError,
} from "../core/mod.ts";
import {
  type CountedValidator,
  createExternalGenerator,
  type ExternalEngineName,
  type GenerateConfig,
  type GenerationDeps,
  type GenerationOutcome,
  LabsLog,
  openValidator,
  resolveGenerateConfig,
  runBatch,
  runGeneration,
} from "../generate/mod.ts";
import { resolveModelConfig } from "../llm/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { readFileCapped } from "./_read_document.ts";
import { type CliIo, EXIT } from "./io.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn generate — prompt → validated, logged Synesthetic asset

Usage:
  syn generate [options] "prompt"
  syn generate --batch prompts.txt [--concurrency N] [options]

Engines:
  --engine NAME        deterministic (default, no network, no keys), gemini, openai, anthropic
                       External engines run in mock mode (canned answers) unless
                       LABS_EXTERNAL_LIVE=1 and the provider's key (GEMINI_API_KEY,
                       OPENAI_API_KEY, ANTHROPIC_API_KEY) are set. OPENAI_ENDPOINT may point
                       at any OpenAI-compatible server.
  --endpoint URL       provider base URL (wins over GEMINI_/OPENAI_/ANTHROPIC_ENDPOINT)
  --model ID           provider model id (wins over GEMINI_/OPENAI_/ANTHROPIC_MODEL)

Options:
  --seed N             same prompt + seed → same asset (any integer; default 0)
  --temperature F      0…2 (for openai, overrides OPENAI_TEMPERATURE)
  --timeout-s N        the most you wait for the provider, in seconds: every attempt
                       and retry pause included (default: 35 s per attempt, up to
                       4 attempts)
  --strict             any validation failure → exit 1, logged severity=error (default)
  --relaxed            validation failures logged severity=warning, exit 0;
                       an invalid asset is never written in either mode
                       (flags win over LABS_FAIL_FAST=1|0)
  --out DIR            where valid assets go (default meta/output/assets, env LABS_OUTPUT_DIR)
  --log-dir DIR        Labs log root (default meta/output/labs, env LABS_LOG_DIR):
                       generator.jsonl, external.jsonl, critic.jsonl, patches.jsonl
  --batch FILE         one prompt per line (blank lines and # comments skipped)
  --concurrency N      prompts in flight in a batch (default 4), one validator connection
  --preview            then serve the written asset(s) in the browser (see 'syn preview
                       --help'); the URL goes to stderr, Ctrl-C stops
  -h, --help           show this help

Validation always goes through the validator service: MCP_ENDPOINT=tcp|stdio|socket
(MCP_HOST/MCP_PORT, MCP_ADAPTER_CMD, MCP_SOCKET_PATH); with nothing set, syn starts
its own 'syn mcp-serve --stdio' child.

Output: a JSON summary on stdout (ok, status, trace_id, asset_path, failure, …); for a
batch, one JSON report (a summary and one result per prompt) and a summary line on
stderr. status is ok (validated and written), invalid (failed pre-flight or the schema;
never written) or failed (provider error, unusable answer, validator unreachable, asset
not writable). Exit 0 ok (or invalid with --relaxed), 1 failed (in either mode) or
invalid in strict mode, 2 bad usage or configuration. docs/troubleshooting_external.md
explains each failure reason.

Examples:
  syn generate "a pulsing blue circle"
  syn generate "a calm blue ocean at dusk" --seed 7 --out assets/
  syn generate --engine=gemini "angry red fire" --relaxed
  LABS_EXTERNAL_LIVE=1 OPENAI_API_KEY=… syn generate --engine=openai "neon rain"
  syn generate --batch prompts.txt --concurrency 4
`;

const OPTIONS = {
  engine: { type: "string" },
  endpoint: { type: "string" },
  model: { type: "string" },
  seed: { type: "string" },
  temperature: { type: "string" },
  "timeout-s": { type: "string" },
  strict: { type: "boolean" },
  relaxed: { type: "boolean" },
  out: { type: "string" },
  "log-dir": { type: "string" },
  batch: { type: "string" },
  concurrency: { type: "string" },
  preview: { type: "boolean" },
} as const;

/** A batch file larger than this is refused while it is read, before it is parsed. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

function readPrompts(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.trim()).filter((line) =>
    line !== "" && !line.startsWith("#")
  );
}

function summaryOf(outcome: GenerationOutcome) {
  const { asset: _asset, ...rest } = outcome;
  return rest;
}

type Values = ReturnType<typeof parseGenerateArgs>["values"];

function parseGenerateArgs(args: string[]) {
  return parseCommandArgs("generate", args, OPTIONS);
}

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

/** The prompts to run: the one positional prompt, or the lines of `--batch FILE`. */
async function promptsFrom(values: Values, positionals: string[], io: CliIo): Promise<string[]> {
  const batchFile = values.batch;
  if (values.concurrency !== undefined && batchFile === undefined) {
    throw new UsageError("--concurrency applies to --batch only");
  }
  if (batchFile === undefined) {
    if (positionals.length > 1) {
      // Joining stray words into the prompt would hide a typo'd flag (`--sede 3`) or a
      // missing pair of quotes.
      throw new UsageError(
        `give the prompt as one argument, in quotes: syn generate "${
          positionals.join(" ").slice(0, 60)
        }"`,
      );
    }
    const prompt = (positionals[0] ?? "").trim();
    if (!prompt) throw new UsageError("a prompt is required");
    return [prompt];
  }
  if (positionals.length) throw new UsageError("give either a prompt or --batch FILE, not both");
  let text: string;
  try {
    const bytes = await readFileCapped(resolvePath(io.cwd, batchFile), batchFile, MAX_BATCH_BYTES);
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    throw new UsageError(`cannot read --batch file: ${batchFile} (${errorMessage(error)})`);
  }
  const prompts = readPrompts(text);
  if (!prompts.length) throw new UsageError(`--batch file has no prompts: ${batchFile}`);
  return prompts;
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
  const summary = {
    total: outcomes.length,
    ...counts,
    duration_ms: Math.round(seconds * 1000),
    assets_per_s: Math.round((counts.ok / seconds) * 10) / 10,
  };
  await say(
    `syn generate: ${summary.total} prompt${
      summary.total === 1 ? "" : "s"
    }: ${counts.ok} ok, ${counts.invalid} invalid, ${counts.failed} failed\n`,
  );
  const report = {
    ok: counts.ok === outcomes.length,
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

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseGenerateArgs(args);
  const config = configFrom(values, io);
  const prompts = await promptsFrom(values, positionals, io);
  if (config.engine === "deterministic" && (values.endpoint || values.model)) {
    throw new UsageError("--endpoint and --model apply to gemini, openai and anthropic only");
  }
  const secrets = io.config.secrets;
  const external = config.engine === "deterministic" ? undefined : createExternalGenerator(
    config.engine as ExternalEngineName,
    resolveModelConfig(config.engine as ExternalEngineName, {
      flags: { endpoint: values.endpoint, model: values.model },
      config: io.config,
    }),
  );
  const log = new LabsLog(config.logDir, secrets);
  await log.prepare();
  // A run killed while writing leaves a staged temporary; the next run clears it.
  await sweepTemporaries(config.outDir);
  const say = (line: string) => io.stderr(redactValue(line, secrets));
  const validator = await openValidator({
    config: io.config,
    selfCommand: io.selfCommand,
    warn: (line) => void say(`syn generate: ${line.replace(/\n$/, "")}\n`),
  });
  const deps = {
    validator,
    log,
    clock: systemClock,
    newTraceId: () => crypto.randomUUID(),
    external,
  };
  const session: Session = { config, deps, validator, secrets, say, io };
  let outcomes: GenerationOutcome[];
  try {
    outcomes = values.batch === undefined
      ? await runOne(prompts[0], session)
      : await runMany(prompts, session);
  } finally {
    await validator.close();
  }
  if (values.preview) await previewOutcomes(io, outcomes);
  return outcomes.some((outcome) => outcome.exit_code !== 0) ? EXIT.failure : EXIT.ok;
}
