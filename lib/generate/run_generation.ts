import { type Clock, errorMessage, responseHash, type StagedFile, SynError } from "../core/mod.ts";
import type { ValidatorClient, ValidatorVerdict } from "../mcp/mod.ts";
import { ASSET_SCHEMA, type Provenance, type SynestheticAsset } from "./asset.ts";
import type { RequestEnvelope } from "./envelope.ts";
import type { ExternalGenerator } from "./external_generator.ts";
import type { GenerateConfig } from "./generate_config.ts";
import { DETERMINISTIC_MODEL, generateDeterministic } from "./generate_deterministic.ts";
import type { LabsLog } from "./labs_log.ts";
import { normalizeAsset } from "./normalize_asset.ts";
import { extractFeatures, type PromptFeatures, promptForLog } from "./_prompt_features.ts";
import { stageAssetFile } from "./asset_files.ts";
import { preflightAsset, type PreflightIssue } from "./preflight_asset.ts";
import {
  buildFailureProvenance,
  buildProvenance,
  type FailureProvenance,
  withProvenance,
} from "./provenance.ts";

/** The world one run touches, passed in. */
export interface GenerationDeps {
  /** An open validator connection; reused across a batch. */
  validator: ValidatorClient;
  log: LabsLog;
  clock: Clock;
  newTraceId: () => string;
  /** Required for external engines. */
  external?: ExternalGenerator;
  /**
   * Stages an asset file (written beside its place, renamed in on commit); defaults to
   * `stageAssetFile`, which creates the folder. The pipeline itself touches no file.
   */
  stageAsset?: (path: string, text: string) => Promise<StagedFile>;
  /**
   * Aborted when the user interrupts (Ctrl-C): a provider call stops, a run with no verdict
   * yet is recorded as `interrupted` (never `ok`), and a batch starts no further prompt. A
   * valid asset already checked is still written with its record: both exist.
   */
  signal?: AbortSignal;
}

/**
 * `ok`: validated and persisted; `invalid`: generated, failed pre-flight or the schema,
 * not persisted; `failed`: no asset, no verdict (validator unreachable) or not writable.
 */
export type GenerationStatus = "ok" | "invalid" | "failed";

export interface Failure {
  reason: string;
  detail: string;
}

/** What one run produced, as `syn generate` reports it. */
export interface GenerationOutcome {
  ok: boolean;
  status: GenerationStatus;
  trace_id: string;
  engine: string;
  /** The asset's `provenance.mode`: `live` only for a live provider call. */
  mode: "mock" | "live";
  strict: boolean;
  severity: "info" | "warning" | "error";
  prompt: string;
  name: string | null;
  asset_path: string | null;
  response_hash: string | null;
  preflight: PreflightIssue[];
  mcp_result: ValidatorVerdict | null;
  failure: Failure | null;
  duration_ms: number;
  /** 0 ok; 1 failed, or invalid in strict mode; 0 for invalid in relaxed mode. */
  exit_code: number;
  /** The asset, also when it was not persisted (never written anywhere then). */
  asset?: SynestheticAsset;
}

/** A file name from the asset's name: lower-case words joined by dashes, at most 48 chars. */
export function slugOf(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "") // accents go, their letters stay: "Über" → "uber"
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return slug || "asset";
}

function summarize(errors: readonly { path: string; msg: string }[]): string {
  const shown = errors.slice(0, 3).map((error) => `${error.path || "/"} ${error.msg}`);
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : "";
  return shown.join("; ") + more;
}

/** What the engine step produced: an asset, or the failure that stopped it. */
interface Produced {
  asset?: SynestheticAsset;
  /** The asset's provenance; for a failed external run, what was known when it stopped. */
  provenance?: Provenance | FailureProvenance;
  envelope?: RequestEnvelope;
  response?: { hash: string; size: number };
  failure: Failure | null;
  mode: GenerationOutcome["mode"];
}

/** Step 1, offline: the deterministic engine, normalized, with provenance. */
function produceDeterministic(
  features: PromptFeatures,
  config: GenerateConfig,
  deps: GenerationDeps,
  traceId: string,
): Produced {
  const seed = config.seed ?? 0;
  const raw = generateDeterministic(features.prompt, {
    seed,
    temperature: config.temperature,
    features,
  });
  const provenance = buildProvenance({
    engine: config.engine,
    endpoint: null,
    apiVersion: "1",
    model: DETERMINISTIC_MODEL,
    temperature: config.temperature,
    seed,
    traceId,
    // Labs spec: provenance mode is mock|live; the offline engine is not live.
    mode: "mock",
    now: deps.clock.now(),
    responseHash: responseHash(raw),
  });
  const asset = withProvenance(normalizeAsset(raw, { features }), provenance);
  return { asset, provenance, failure: null, mode: provenance.mode };
}

/** Step 1, external: the provider call (retries and normalization live in the generator). */
async function produceExternal(
  prompt: string,
  config: GenerateConfig,
  deps: GenerationDeps,
  traceId: string,
): Promise<Produced> {
  const external = deps.external;
  if (!external) throw new SynError("config_error", `No generator for engine: ${config.engine}`);
  const totalMs = config.timeoutS === null ? undefined : config.timeoutS * 1000;
  const timeouts = totalMs === undefined ? undefined : {
    totalMs,
    connectMs: Math.min(5000, totalMs),
    readMs: Math.min(30000, totalMs),
  };
  try {
    // --timeout-s is what the user waits in all: attempts and retry pauses included.
    const options = {
      temperature: config.temperature,
      timeouts,
      deadlineMs: totalMs,
      signal: deps.signal,
    };
    const generation = await external.generate(prompt, config.seed, options, traceId);
    return { ...generation, failure: null, mode: external.mode };
  } catch (error) {
    if (!(error instanceof SynError)) throw error;
    const data = error.data as Record<string, unknown>;
    const envelope = data.envelope as RequestEnvelope | undefined;
    const response = data.response as { hash: string; size: number } | undefined;
    // Labs spec: provenance in every external.jsonl entry, failures included.
    const provenance = (data.provenance as FailureProvenance | undefined) ??
      buildFailureProvenance({
        engine: config.engine,
        endpoint: external.endpoint,
        apiVersion: "unknown",
        model: envelope?.parameters.model ?? external.model,
        temperature: envelope?.parameters.temperature ?? config.temperature,
        seed: envelope?.seed ?? config.seed,
        traceId,
        mode: external.mode,
        now: deps.clock.now(),
        responseHash: response?.hash,
      });
    return {
      failure: {
        reason: String(data.reason ?? error.code),
        detail: String(data.detail ?? error.message),
      },
      envelope,
      response,
      provenance,
      mode: external.mode,
    };
  }
}

/** What the checks said of an asset. */
interface Checked {
  asset?: SynestheticAsset;
  preflight: PreflightIssue[];
  verdict: ValidatorVerdict | null;
  status: GenerationStatus;
  failure: Failure | null;
}

/**
 * Step 2: secrets masked, pre-flight, then the validator service — always called, even
 * after a failed pre-flight (Labs spec validation step 2).
 */
async function checkAsset(produced: Produced, deps: GenerationDeps): Promise<Checked> {
  if (!produced.asset) {
    return { preflight: [], verdict: null, status: "failed", failure: produced.failure };
  }
  // Never persist a secret, not even one a provider echoes back in its answer.
  const asset = deps.log.redact(produced.asset);
  const preflight = preflightAsset(asset);
  const verdict = await verdictUnlessInterrupted(
    deps.validator.validateAsset(asset, ASSET_SCHEMA),
    deps.signal,
  );
  const checked = { asset, preflight, verdict };
  if (!verdict.ok && verdict.reason !== undefined && verdict.reason !== "validation_failed") {
    // No verdict at all (validator unreachable, timed out, refused the call): nothing is
    // known about the asset, so the run failed whatever the strictness.
    const failure = { reason: verdict.reason, detail: verdict.detail ?? verdict.reason };
    return { ...checked, status: "failed", failure };
  }
  if (preflight.length) {
    const failure = { reason: "validation_failed", detail: `pre-flight: ${summarize(preflight)}` };
    return { ...checked, status: "invalid", failure };
  }
  if (!verdict.ok) {
    const detail = verdict.detail ?? summarize(verdict.errors ?? []);
    return { ...checked, status: "invalid", failure: { reason: "validation_failed", detail } };
  }
  return { ...checked, status: "ok", failure: null };
}

/**
 * The validator's verdict, or an `interrupted` one as soon as `signal` aborts: a validator
 * elsewhere (`MCP_ENDPOINT=tcp`) does not stop with the user's Ctrl-C, and its answer is
 * not waited for.
 */
function verdictUnlessInterrupted(
  pending: Promise<ValidatorVerdict>,
  signal: AbortSignal | undefined,
): Promise<ValidatorVerdict> {
  if (!signal) return pending;
  return new Promise((resolve, reject) => {
    const stop = () =>
      resolve({
        ok: false,
        reason: "interrupted",
        detail: "interrupted (Ctrl-C) before the validator's verdict",
      });
    if (signal.aborted) stop();
    signal.addEventListener("abort", stop, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/**
 * A run interrupted before it had a verdict (the validator stopped with the user's Ctrl-C,
 * or the provider call was cut) is recorded as what it was: `interrupted`, not the
 * transport error the interruption caused. A verdict that did arrive stands.
 */
function interruptedOr(checked: Checked, signal: AbortSignal | undefined): Checked {
  if (!signal?.aborted || checked.status !== "failed") return checked;
  if (checked.failure?.reason === "interrupted") return checked;
  const detail = "interrupted (Ctrl-C) before the validator's verdict";
  return { ...checked, failure: { reason: "interrupted", detail } };
}

/**
 * Step 3: a valid asset is staged; it is put in place only after its generator.jsonl
 * record is written, so a run killed at any point never leaves an asset without its record.
 */
async function stageValidAsset(
  checked: Checked,
  config: GenerateConfig,
  deps: GenerationDeps,
  traceId: string,
): Promise<{ path: string | null; staged?: StagedFile; failure?: Failure }> {
  if (checked.status !== "ok" || !checked.asset) return { path: null };
  const path = `${config.outDir}/${slugOf(checked.asset.name)}-${traceId.slice(0, 8)}.json`;
  try {
    const text = JSON.stringify(checked.asset, null, 2) + "\n";
    const staged = await (deps.stageAsset ?? stageAssetFile)(path, text);
    return { path, staged };
  } catch (error) {
    return {
      path: null,
      failure: { reason: "io_error", detail: `cannot write ${path}: ${errorMessage(error)}` },
    };
  }
}

/** The external.jsonl record of an external run (failures too). */
function externalRecord(
  run: { ts: string; traceId: string; logged: string; severity: string },
  produced: Produced,
  checked: Checked,
  failure: Failure | null,
  config: GenerateConfig,
  deps: GenerationDeps,
) {
  const { envelope, response, provenance } = produced;
  return {
    ts: run.ts,
    trace_id: run.traceId,
    engine: config.engine,
    mode: produced.mode,
    transport: deps.validator.transport,
    strict: config.strict,
    prompt: run.logged,
    request: {
      model: envelope?.parameters.model ?? deps.external?.model ?? null,
      temperature: envelope?.parameters.temperature ?? config.temperature,
      seed: envelope?.seed ?? config.seed,
      max_tokens: envelope?.parameters.max_tokens ?? null,
    },
    raw_response: response ? { hash: response.hash, size: response.size, redacted: true } : null,
    normalized_asset: checked.asset ? assetForLog(checked.asset) : null,
    mcp_result: checked.verdict,
    provenance: provenance ?? null,
    failure,
    severity: run.severity,
  };
}

/**
 * Step 4: the generator.jsonl record, then the staged asset put in place. When that last
 * rename fails, a second record for the same trace says what really happened.
 */
async function recordAndCommit(
  outcome: GenerationOutcome,
  record: Record<string, unknown>,
  staged: StagedFile | undefined,
  deps: GenerationDeps,
): Promise<GenerationOutcome> {
  try {
    await deps.log.append("generator", record);
  } catch (error) {
    await staged?.discard();
    throw error;
  }
  if (!staged) return outcome;
  try {
    await staged.commit();
    return outcome;
  } catch (error) {
    const failed: GenerationOutcome = {
      ...outcome,
      ok: false,
      status: "failed",
      severity: "error",
      asset_path: null,
      failure: {
        reason: "io_error",
        detail: `cannot write ${outcome.asset_path}: ${errorMessage(error)}`,
      },
      exit_code: 1,
    };
    await deps.log.append("generator", { ...record, ...failed });
    return failed;
  }
}

/**
 * One pass of the Labs pipeline: engine → normalize → provenance → pre-flight → the
 * validator service (always, whatever the mode) → persist only a valid asset → log to
 * `generator.jsonl` (every run) and `external.jsonl` (every external run, failures too).
 * The prompt is read once (its features feed the engine and normalization).
 */
export async function runGeneration(
  prompt: string,
  config: GenerateConfig,
  deps: GenerationDeps,
): Promise<GenerationOutcome> {
  const started = deps.clock.now();
  const traceId = deps.newTraceId();
  const features = extractFeatures(prompt);
  const produced = config.engine === "deterministic"
    ? produceDeterministic(features, config, deps, traceId)
    : await produceExternal(prompt, config, deps, traceId);
  const checked = interruptedOr(await checkAsset(produced, deps), deps.signal);
  const written = await stageValidAsset(checked, config, deps, traceId);
  const status: GenerationStatus = written.failure ? "failed" : checked.status;
  const failure = written.failure ?? checked.failure;
  const relaxedInvalid = status === "invalid" && !config.strict;
  const severity = status === "ok" ? "info" : relaxedInvalid ? "warning" : "error";
  // Logged and summarized capped: the full prompt lives once, in the asset's meta_info.
  const run = {
    ts: new Date(deps.clock.now()).toISOString(),
    traceId,
    logged: features.logged,
    severity,
  };
  if (config.engine !== "deterministic") {
    await deps.log.append(
      "external",
      externalRecord(run, produced, checked, failure, config, deps),
    );
  }
  const { provenance, response } = produced;
  const outcome: GenerationOutcome = {
    ok: status === "ok",
    status,
    trace_id: traceId,
    engine: config.engine,
    mode: produced.mode,
    strict: config.strict,
    severity,
    prompt: features.logged,
    name: checked.asset?.name ?? null,
    asset_path: written.path,
    response_hash: provenance?.response_hash ?? response?.hash ?? null,
    preflight: checked.preflight,
    mcp_result: checked.verdict,
    failure,
    duration_ms: Math.max(0, deps.clock.now() - started),
    exit_code: status === "ok" || relaxedInvalid ? 0 : 1,
  };
  const record = {
    ts: run.ts,
    ...outcome,
    transport: deps.validator.transport,
    seed: provenance?.parameters.seed ?? config.seed,
    ...(provenance?.filled_sections ? { filled_sections: provenance.filled_sections } : {}),
  };
  const final = await recordAndCommit(outcome, record, written.staged, deps);
  return { ...final, asset: checked.asset };
}

/** Options of {@linkcode runBatch}. */
export interface BatchOptions {
  concurrency: number;
  /** Called after each prompt finishes (for a progress line). */
  onProgress?: (done: number, total: number, outcome: GenerationOutcome) => void | Promise<void>;
}

/**
 * Runs many prompts over one validator connection with at most `concurrency` at once.
 * A prompt that fails (even by throwing) never stops the others; outcomes keep the
 * prompts' order. Once `deps.signal` is aborted no further prompt starts: the outcomes are
 * those of the prompts that ran.
 */
export async function runBatch(
  prompts: readonly string[],
  config: GenerateConfig,
  deps: GenerationDeps,
  options: BatchOptions,
): Promise<GenerationOutcome[]> {
  const outcomes: GenerationOutcome[] = new Array(prompts.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < prompts.length && !deps.signal?.aborted) {
      const index = next++;
      let outcome: GenerationOutcome;
      try {
        outcome = await runGeneration(prompts[index], config, deps);
      } catch (error) {
        outcome = {
          ok: false,
          status: "failed",
          trace_id: deps.newTraceId(),
          engine: config.engine,
          mode: deps.external?.mode ?? "mock",
          strict: config.strict,
          severity: "error",
          prompt: promptForLog(prompts[index]),
          name: null,
          asset_path: null,
          response_hash: null,
          preflight: [],
          mcp_result: null,
          failure: {
            reason: error instanceof SynError ? error.code : "internal_error",
            detail: errorMessage(error),
          },
          duration_ms: 0,
          exit_code: 1,
        };
        // Best effort: the log itself may be what failed.
        await deps.log.append("generator", {
          ts: new Date(deps.clock.now()).toISOString(),
          ...outcome,
          transport: deps.validator.transport,
          seed: config.seed,
        }).catch(() => {});
      }
      outcomes[index] = outcome;
      done++;
      await options.onProgress?.(done, prompts.length, outcome);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, prompts.length));
  await Promise.all(Array.from({ length: workers }, worker));
  // After an interruption the prompts never started have no outcome.
  return outcomes.filter((outcome) => outcome !== undefined);
}

/** The asset as a log record holds it: its prompt capped like every logged prompt. */
function assetForLog(asset: SynestheticAsset): SynestheticAsset {
  const prompt = (asset.meta_info as { prompt?: unknown }).prompt;
  if (typeof prompt !== "string" || prompt === promptForLog(prompt)) return asset;
  return { ...asset, meta_info: { ...asset.meta_info, prompt: promptForLog(prompt) } };
}
