import { type Clock, errorMessage, isRecord, SynError, systemClock } from "../core/mod.ts";
import {
  createLanguageModel,
  type GenerateRequest,
  type GenerateResult,
  type LanguageModel,
  type ModelConfig,
  ProviderError,
  type Timeouts,
} from "../llm/mod.ts";
import type { ExternalEngineName, Provenance, SynestheticAsset } from "./asset.ts";
import { buildEnvelope, type RequestEnvelope } from "./envelope.ts";
import { normalizeAsset } from "./normalize_asset.ts";
import { buildFailureProvenance, buildProvenance, withProvenance } from "./provenance.ts";
import { ANSWER_JSON_SCHEMA, mockProviderAnswer } from "./provider_answer.ts";

/** Generation parameters a caller may pass (Labs spec `params`). */
export interface ExternalParameters {
  temperature?: number | null;
  maxTokens?: number | null;
  timeouts?: Partial<Timeouts>;
  /**
   * The most a user waits for this generation, in ms: every attempt and every retry
   * pause included (`--timeout-s`). Past it the run fails with reason `timeout`.
   */
  deadlineMs?: number;
  /** Aborted when the user interrupts the run (Ctrl-C): the call stops, reason `interrupted`. */
  signal?: AbortSignal;
}

/** A successful external generation: the normalized asset and what the logs need. */
export interface ExternalGeneration {
  /** Normalized, with `meta_info.provenance`. */
  asset: SynestheticAsset;
  envelope: RequestEnvelope;
  provenance: Provenance;
  response: { hash: string; size: number; attempts: number };
}

/**
 * The Labs spec's `ExternalGenerator` contract: `generate()` resolves to a normalized
 * asset with provenance. Failures are thrown as `SynError`s whose `data` carries
 * `reason` (the spec's taxonomy), `detail`, the `envelope` and, when an answer arrived,
 * `response: { hash, size }`.
 */
export interface ExternalGenerator {
  readonly name: ExternalEngineName;
  readonly model: string;
  /** Base URL; `null` in mock mode. */
  readonly endpoint: string | null;
  readonly mode: "mock" | "live";
  generate(
    prompt: string,
    seed?: number | null,
    params?: ExternalParameters,
    traceId?: string,
  ): Promise<ExternalGeneration>;
}

/** Options of {@linkcode createExternalGenerator}. */
export interface ExternalGeneratorOptions {
  /** Injected for tests; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  clock?: Clock;
  random?: () => number;
  /** Makes trace ids; defaults to `crypto.randomUUID`. */
  newTraceId?: () => string;
  /** Replaces the built-in prompt-dependent mock answers (mock mode only). */
  mockAnswer?: (envelope: RequestEnvelope) => unknown;
}

const SYSTEM_PROMPT = `You design multimodal Synesthetic assets (schema 0.7.3) as one JSON object.
Answer with JSON only, with exactly these top-level keys:
- "name": short title
- "shader": {"name", "fragment_shader" (GLSL using uniforms u_time, u_resolution, u_px, u_py, u_r),
  "vertex_shader", "uniforms": [{"name","type","stage":"fragment","default"}],
  "input_parameters": [{"name","parameter","path","type":"float","default","min","max","step"}]}
- "tone": {"name", "synth": {"type": one of Tone.Synth, Tone.PolySynth, Tone.MonoSynth, Tone.FMSynth,
  Tone.AMSynth, Tone.DuoSynth, Tone.MembraneSynth, Tone.MetalSynth, Tone.PluckSynth,
  "options": {"oscillator": {"type"}, "envelope": {"attack","decay","sustain","release"}, "volume" (dB)}}}
- "haptic": {"name", "device": {"type": "generic", "options": {"<name>": {"value": number, "unit": string}}},
  "input_parameters": [{"name":"Intensity","parameter":"haptic.intensity","path":"haptic.intensity",
  "type":"float","unit":"linear","default" (0..1),"min":0,"max":1}]}
- "controls": [{"parameter","label","type":"float","unit","default","min","max",
  "mappings": [{"combo": {"mouseButtons": ["left"]}, "action": {"axis": "mouse.x"|"mouse.y"|"mouse.wheel",
  "sensitivity": number}}]}], at least mouse.x -> shader.u_px and mouse.y (negative sensitivity) -> shader.u_py
- "meta": {"title", "description", "category": "multimodal", "complexity": "low"|"medium"|"high", "tags": [..]}
No other keys. No URLs, no file references.`;

/** The envelope as a provider-neutral request; `lib/llm` maps it onto each wire format. */
function toRequest(
  envelope: RequestEnvelope,
  params: ExternalParameters,
): GenerateRequest {
  const request: GenerateRequest = {
    system: SYSTEM_PROMPT,
    // The user turn carries the whole envelope, so every provider sees the same request;
    // its parameters also travel as the provider's own fields below.
    prompt: JSON.stringify(envelope),
    jsonSchema: ANSWER_JSON_SCHEMA as Record<string, unknown>,
    schemaName: "synesthetic_asset",
    // Normalization decides what fits; the model layer only insists on an object.
    validateJson: (value) => isRecord(value) ? [] : ["answer must be a JSON object"],
    traceId: envelope.trace_id,
  };
  if (envelope.seed !== null) request.seed = envelope.seed;
  if (envelope.parameters.temperature !== null) {
    request.temperature = envelope.parameters.temperature;
  }
  if (envelope.parameters.max_tokens !== null) request.maxTokens = envelope.parameters.max_tokens;
  if (params.timeouts) request.timeouts = params.timeouts;
  const signals = [
    ...(params.deadlineMs !== undefined ? [AbortSignal.timeout(params.deadlineMs)] : []),
    ...(params.signal ? [params.signal] : []),
  ];
  if (signals.length) request.signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
  return request;
}

/** Creates the generator for one engine over a resolved model config. */
export function createExternalGenerator(
  engine: ExternalEngineName,
  config: ModelConfig,
  options: ExternalGeneratorOptions = {},
): ExternalGenerator {
  const clock = options.clock ?? systemClock;
  const newTraceId = options.newTraceId ?? (() => crypto.randomUUID());
  // Calls may overlap (batch runs): the mock finds its envelope by the request's trace id.
  const pending = new Map<string, RequestEnvelope>();
  const model = languageModelFor(engine, config, { ...options, clock }, pending);
  const context: GeneratorContext = { engine, config, clock, model, pending };
  return {
    name: engine,
    model: config.model,
    endpoint: config.mode === "live" ? config.endpoint : null,
    mode: config.mode,
    generate: (prompt, seed = null, params = {}, traceId = newTraceId()) =>
      generateExternal(context, { prompt, seed, params, traceId }),
  };
}

/** What every generation of one generator shares. */
interface GeneratorContext {
  engine: ExternalEngineName;
  config: ModelConfig;
  clock: Clock;
  model: LanguageModel;
  /** The envelopes of the calls under way, by trace id (for mock answers). */
  pending: Map<string, RequestEnvelope>;
}

/** One call of `generate()`, its defaults applied. */
interface GenerationCall {
  prompt: string;
  seed: number | null;
  params: ExternalParameters;
  traceId: string;
}

/** Asks the model, normalizes its answer and stamps it with provenance. */
async function generateExternal(
  context: GeneratorContext,
  call: GenerationCall,
): Promise<ExternalGeneration> {
  const { engine, config } = context;
  const { prompt, seed, params, traceId } = call;
  const temperature = params.temperature ?? config.temperature ?? null;
  const envelope = buildEnvelope({
    traceId,
    prompt,
    seed: seed ?? null,
    model: config.model,
    temperature,
    maxTokens: params.maxTokens ?? defaultMaxTokens(engine),
  });
  const known = {
    engine,
    endpoint: config.mode === "live" ? config.endpoint : null,
    apiVersion: config.apiVersion,
    model: config.model,
    temperature,
    seed: seed ?? null,
    traceId,
    mode: config.mode,
  };
  let hash: string | undefined;
  try {
    const result = await askModel(context, envelope, params);
    hash = result.responseHash;
    const response = { hash, size: result.rawSize, attempts: result.attempts };
    const filled: string[] = [];
    const normalized = normalizeAnswer(answerOf(result, envelope, response), {
      prompt,
      filled,
      envelope,
      response,
    });
    const provenance = buildProvenance({
      ...known,
      model: result.model || config.model,
      mode: result.mode,
      now: context.clock.now(),
      responseHash: hash,
      filledSections: filled,
    });
    return { asset: withProvenance(normalized, provenance), envelope, provenance, response };
  } catch (error) {
    // A failure's record keeps what was known: its data carries the failure provenance.
    if (error instanceof SynError) {
      const now = context.clock.now();
      error.data.provenance = buildFailureProvenance({ ...known, now, responseHash: hash });
    }
    throw error;
  }
}

/** The model's answer to an envelope; a failure becomes a `SynError` with the envelope. */
async function askModel(
  context: GeneratorContext,
  envelope: RequestEnvelope,
  params: ExternalParameters,
): Promise<GenerateResult> {
  try {
    context.pending.set(envelope.trace_id, envelope);
    return await context.model.generate(toRequest(envelope, params));
  } catch (error) {
    throw generationFailure(error, envelope, params);
  } finally {
    context.pending.delete(envelope.trace_id);
  }
}

/** Anthropic's Messages API requires max_tokens; the others may omit it. */
function defaultMaxTokens(engine: ExternalEngineName): number | null {
  return engine === "anthropic" ? 4096 : null;
}

/**
 * The model behind a generator. In mock mode it answers each request from the envelope
 * `pending` holds under the request's trace id.
 */
function languageModelFor(
  engine: ExternalEngineName,
  config: ModelConfig,
  options: ExternalGeneratorOptions & { clock: Clock },
  pending: ReadonlyMap<string, RequestEnvelope>,
): LanguageModel {
  return createLanguageModel(config, {
    fetch: options.fetch,
    clock: options.clock,
    random: options.random,
    mock: (request: GenerateRequest) => {
      const envelope = pending.get(request.traceId ?? "");
      if (!envelope) throw new Error("Mock answer asked for an unknown request");
      return options.mockAnswer
        ? options.mockAnswer(envelope)
        : mockProviderAnswer(engine, envelope);
    },
  });
}

/** What a failed generation is reported as: a `SynError` whose `data.reason` is the spec's. */
function generationFailure(
  error: unknown,
  envelope: RequestEnvelope,
  params: ExternalParameters,
): SynError {
  if (params.signal?.aborted) {
    const detail = "interrupted (Ctrl-C) while waiting for the provider";
    return new SynError("interrupted", detail, { reason: "interrupted", detail, envelope });
  }
  if (error instanceof ProviderError) {
    return new SynError(error.reason, error.message, {
      reason: error.reason,
      detail: error.detail,
      status: error.status,
      attempts: error.attempts,
      envelope,
    });
  }
  if (error instanceof DOMException && error.name === "TimeoutError") {
    const seconds = (params.deadlineMs ?? 0) / 1000;
    return new SynError("timeout", `No answer within ${seconds} s, retries included`, {
      reason: "timeout",
      detail: `no answer within --timeout-s ${seconds} (every attempt and retry pause included)`,
      envelope,
    });
  }
  // Anything else (a mock script that throws, a bug) still ends as a logged failure.
  const detail = errorMessage(error);
  return new SynError("internal_error", detail, { reason: "internal_error", detail, envelope });
}

/** The answer's JSON: parsed by the model layer, or here from its text. */
function answerOf(
  result: GenerateResult,
  envelope: RequestEnvelope,
  response: ExternalGeneration["response"],
): unknown {
  if (result.json !== undefined) return result.json;
  try {
    return JSON.parse(result.text);
  } catch {
    throw new SynError("bad_response", "Answer is not JSON", {
      reason: "bad_response",
      detail: "answer is not JSON",
      envelope,
      response,
    });
  }
}

/** The answer as an asset; an answer normalization refuses is a `bad_response`. */
function normalizeAnswer(
  answer: unknown,
  context: {
    prompt: string;
    filled: string[];
    envelope: RequestEnvelope;
    response: ExternalGeneration["response"];
  },
): SynestheticAsset {
  const { prompt, filled, envelope, response } = context;
  try {
    return normalizeAsset(answer, { prompt, filled });
  } catch (error) {
    if (error instanceof SynError) {
      throw new SynError("bad_response", error.message, {
        reason: "bad_response",
        detail: error.message,
        issues: error.data.issues,
        envelope,
        response,
      });
    }
    throw error;
  }
}
