/**
 * @module
 * Prompt → validated, logged Synesthetic asset (Labs spec v0.3.4): the asset model, the
 * deterministic engine, external generators (Gemini, OpenAI, Anthropic over `lib/llm`),
 * normalization onto schema 0.7.3, provenance, pre-flight, the pipeline that always
 * calls the validator service, the critic, the patch lifecycle and the Labs JSONL logs.
 *
 * ```ts
 * import { generateDeterministic, normalizeAsset, preflightAsset } from "./mod.ts";
 * const asset = normalizeAsset(generateDeterministic("a calm blue ocean at dusk", { seed: 7 }));
 * preflightAsset(asset); // []
 * asset.meta_info.category; // "multimodal"
 * ```
 */
export {
  ASSET_SCHEMA,
  type ControlBundle,
  type ControlMapping,
  type ControlParameter,
  type EngineName,
  ENGINES,
  type ExternalEngineName,
  type InputParameter,
  type JsonObject,
  type MetaInfo,
  type Provenance,
  REQUIRED_SECTIONS,
  type Shader,
  type SynestheticAsset,
  SYNTH_TYPES,
  type UniformDef,
} from "./asset.ts";
export {
  DETERMINISTIC_MODEL,
  type DeterministicOptions,
  generateDeterministic,
} from "./generate_deterministic.ts";
export { canonicalBaseline } from "./canonical_baseline.ts";
export { normalizeAsset, type NormalizeOptions } from "./normalize_asset.ts";
export {
  buildProvenance,
  type ProvenanceInput,
  safeEndpoint,
  withProvenance,
} from "./provenance.ts";
export { preflightAsset, type PreflightIssue } from "./preflight_asset.ts";
export { buildEnvelope, type RequestEnvelope } from "./envelope.ts";
export {
  createExternalGenerator,
  type ExternalGeneration,
  type ExternalGenerator,
  type ExternalGeneratorOptions,
  type ExternalParameters,
} from "./external_generator.ts";
export { ANSWER_JSON_SCHEMA, mockProviderAnswer } from "./provider_answer.ts";
export {
  DEFAULT_OUT_DIR,
  type GenerateConfig,
  type GenerateFlags,
  resolveGenerateConfig,
  resolveLogDir,
  type SettingSource,
} from "./generate_config.ts";
export { DEFAULT_LOG_DIR, LabsLog, LOG_FILES, type LogStream } from "./labs_log.ts";
export {
  type BatchOptions,
  type Failure,
  type GenerationDeps,
  type GenerationOutcome,
  type GenerationStatus,
  runBatch,
  runGeneration,
  slugOf,
} from "./run_generation.ts";
export {
  critiqueAsset,
  type CritiqueRecord,
  type QualityIssue,
  runCritique,
  SILENT_VOLUME_DB,
} from "./critique_asset.ts";
export { contentId } from "./content_id.ts";
export {
  applyPatch,
  type PatchDeps,
  type PatchRecord,
  previewPatch,
  rateTarget,
  type RatingRecord,
} from "./patch_lifecycle.ts";
