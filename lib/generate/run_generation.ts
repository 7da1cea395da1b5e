import {
  type Clock,
  errorMessage,
  responseHash,
  type StagedFile,
  stageFile,
  SynError,
} from "../core/mod.ts";
import type { ValidatorClient, ValidatorVerdict } from "../mcp/mod.ts";
import { ASSET_SCHEMA, type Provenance, type SynestheticAsset } from "./asset.ts";
import type { RequestEnvelope } from "./envelope.ts";
import type { ExternalGenerator } from "./external_generator.ts";
import type { GenerateConfig } from "./generate_config.ts";
import { DETERMINISTIC_MODEL, generateDeterministic } from "./generate_deterministic.ts";
import type { LabsLog } from "./labs_log.ts";
import { normalizeAsset } from "./normalize_asset.ts";
import { promptForLog } from "./_prompt_features.ts";
import { preflightAsset, type PreflightIssue } from "./preflight_asset.ts";
import { buildProvenance, withProvenance } from "./provenance.ts";

/** The world one run touches, passed in. */
export interface GenerationDeps {
  /** An open validator connection; reused across a batch. */
  validator: ValidatorClient;
  log: LabsLog;
  clock: Clock;
  newTraceId: () => string;
  /** Required for external engines. */
  external?: ExternalGenerator;
  /** Writes a file atomically; defaults to core `writeFileAtomic`. */
  writeFile?: (path: string, text: string) => Promise<void>;
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
  mode: "mock" | "live" | "local";
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

/**
 * One pass of the Labs pipeline: engine → normalize → provenance → pre-flight → the
 * validator service (always, whatever the mode) → persist only a valid asset → log to
 * `generator.jsonl` (every run) and `external.jsonl` (every external run, failures too).
 */
export async function runGeneration(
  prompt: string,
  config: GenerateConfig,
  deps: GenerationDeps,
): Promise<GenerationOutcome> {
  const started = deps.clock.now();
  const traceId = deps.newTraceId();
  const engine = config.engine;
  let asset: SynestheticAsset | undefined;
  let provenance: Provenance | undefined;
  let envelope: RequestEnvelope | undefined;
  let response: { hash: string; size: number } | undefined;
  let failure: Failure | null = null;
  let mode: GenerationOutcome["mode"] = "local";

  if (engine === "deterministic") {
    const seed = config.seed ?? 0;
    const raw = generateDeterministic(prompt, { seed, temperature: config.temperature });
    const hash = responseHash(raw);
    provenance = buildProvenance({
      engine,
      endpoint: null,
      apiVersion: "1",
      model: DETERMINISTIC_MODEL,
      temperature: config.temperature,
      seed,
      traceId,
      // Labs spec: provenance mode is mock|live; the offline engine is not live.
      mode: "mock",
      now: deps.clock.now(),
      responseHash: hash,
    });
    asset = withProvenance(normalizeAsset(raw, { prompt }), provenance);
  } else {
    const external = deps.external;
    if (!external) throw new SynError("config_error", `No generator for engine: ${engine}`);
    mode = external.mode;
    try {
      const timeouts = config.timeoutS === null ? undefined : {
        totalMs: config.timeoutS * 1000,
        connectMs: Math.min(5000, config.timeoutS * 1000),
        readMs: Math.min(30000, config.timeoutS * 1000),
      };
      const generation = await external.generate(
        prompt,
        config.seed,
        {
          temperature: config.temperature,
          timeouts,
          // --timeout-s is what the user waits in all: attempts and retry pauses included.
          deadlineMs: config.timeoutS === null ? undefined : config.timeoutS * 1000,
        },
        traceId,
      );
      asset = generation.asset;
      provenance = generation.provenance;
      envelope = generation.envelope;
      response = generation.response;
    } catch (error) {
      if (!(error instanceof SynError)) throw error;
      const data = error.data as Record<string, unknown>;
      failure = {
        reason: String(data.reason ?? error.code),
        detail: String(data.detail ?? error.message),
      };
      envelope = data.envelope as RequestEnvelope | undefined;
      response = data.response as { hash: string; size: number } | undefined;
    }
  }

  let preflight: PreflightIssue[] = [];
  let verdict: ValidatorVerdict | null = null;
  let status: GenerationStatus = asset ? "ok" : "failed";
  if (asset) {
    // Never persist a secret, not even one a provider echoes back in its answer.
    asset = deps.log.redact(asset);
    preflight = preflightAsset(asset);
    // Labs spec validation step 2: the service is always called, even after a failed pre-flight.
    verdict = await deps.validator.validateAsset(asset, ASSET_SCHEMA);
    if (!verdict.ok && verdict.reason !== undefined && verdict.reason !== "validation_failed") {
      // No verdict at all (validator unreachable, timed out, refused the call): nothing is
      // known about the asset, so the run failed whatever the strictness.
      status = "failed";
      failure = { reason: verdict.reason, detail: verdict.detail ?? verdict.reason };
    } else if (preflight.length) {
      status = "invalid";
      failure = { reason: "validation_failed", detail: `pre-flight: ${summarize(preflight)}` };
    } else if (!verdict.ok) {
      status = "invalid";
      failure = {
        reason: "validation_failed",
        detail: verdict.detail ?? summarize(verdict.errors ?? []),
      };
    }
  }
  let assetPath: string | null = null;
  // The asset is staged now and put in place only after its generator.jsonl record is
  // written: a run killed at any point never leaves an asset without its record.
  let staged: StagedFile | undefined;
  if (status === "ok" && asset) {
    const path = `${config.outDir}/${slugOf(asset.name)}-${traceId.slice(0, 8)}.json`;
    try {
      await Deno.mkdir(config.outDir, { recursive: true });
      const text = JSON.stringify(asset, null, 2) + "\n";
      if (deps.writeFile) await deps.writeFile(path, text);
      else staged = await stageFile(path, text);
      assetPath = path;
    } catch (error) {
      status = "failed";
      failure = { reason: "io_error", detail: `cannot write ${path}: ${errorMessage(error)}` };
    }
  }
  const severity = status === "ok"
    ? "info"
    : status === "invalid" && !config.strict
    ? "warning"
    : "error";
  const exitCode = status === "ok" ? 0 : status === "invalid" && !config.strict ? 0 : 1;
  const ts = new Date(deps.clock.now()).toISOString();
  const transport = deps.validator.transport;

  if (engine !== "deterministic") {
    await deps.log.append("external", {
      ts,
      trace_id: traceId,
      engine,
      mode,
      transport,
      strict: config.strict,
      prompt: promptForLog(prompt),
      request: {
        model: envelope?.parameters.model ?? deps.external?.model ?? null,
        temperature: envelope?.parameters.temperature ?? config.temperature,
        seed: envelope?.seed ?? config.seed,
        max_tokens: envelope?.parameters.max_tokens ?? null,
      },
      raw_response: response ? { hash: response.hash, size: response.size, redacted: true } : null,
      normalized_asset: asset ? assetForLog(asset) : null,
      mcp_result: verdict,
      provenance: provenance ?? null,
      failure,
      severity,
    });
  }
  const outcome: GenerationOutcome = {
    ok: status === "ok",
    status,
    trace_id: traceId,
    engine,
    mode,
    strict: config.strict,
    severity,
    // Logged and summarized capped: the full prompt lives once, in the asset's meta_info.
    prompt: promptForLog(prompt),
    name: asset?.name ?? null,
    asset_path: assetPath,
    response_hash: provenance?.response_hash ?? response?.hash ?? null,
    preflight,
    mcp_result: verdict,
    failure,
    duration_ms: Math.max(0, deps.clock.now() - started),
    exit_code: exitCode,
  };
  const record = {
    ts,
    ...outcome,
    transport,
    seed: provenance?.parameters.seed ?? config.seed,
    ...(provenance?.filled_sections ? { filled_sections: provenance.filled_sections } : {}),
  };
  try {
    await deps.log.append("generator", record);
  } catch (error) {
    await staged?.discard();
    throw error;
  }
  if (staged) {
    try {
      await staged.commit();
    } catch (error) {
      // The record said ok; a second record for the same trace says what really happened.
      const failed: GenerationOutcome = {
        ...outcome,
        ok: false,
        status: "failed",
        severity: "error",
        asset_path: null,
        failure: {
          reason: "io_error",
          detail: `cannot write ${assetPath}: ${errorMessage(error)}`,
        },
        exit_code: 1,
      };
      await deps.log.append("generator", { ...record, ...failed });
      return { ...failed, asset };
    }
  }
  return { ...outcome, asset };
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
 * prompts' order.
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
    while (next < prompts.length) {
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
          mode: config.engine === "deterministic" ? "local" : deps.external?.mode ?? "mock",
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
  return outcomes;
}

/** The asset as a log record holds it: its prompt capped like every logged prompt. */
function assetForLog(asset: SynestheticAsset): SynestheticAsset {
  const prompt = (asset.meta_info as { prompt?: unknown }).prompt;
  if (typeof prompt !== "string" || prompt === promptForLog(prompt)) return asset;
  return { ...asset, meta_info: { ...asset.meta_info, prompt: promptForLog(prompt) } };
}
