/**
 * @module
 * Tool synthesis (Huginn spec): recorded tool events, the stores that keep them
 * (`node:sqlite` by default, Postgres through `SYN_EVENT_STORE`), ingest of event JSONL,
 * `syn chat`/`syn tools --trace` traces and the public agent-trace corpora, chain mining,
 * synthesis of composite tools (a run, or the whole pipeline), replay validation (and
 * execution in the sandbox or against a target the caller opens) and promotion.
 *
 * ```ts
 * import { ingestSources, openEventStore } from "./mod.ts";
 * await using store = await openEventStore(".syn", undefined);
 * const counts = await ingestSources(store, [{ path: "events.jsonl" }]);
 * // { files: 1, read: 120, added: 120, duplicates: 0, skipped: 0, bad: [], bad_total: 0 }
 * ```
 */
export {
  compareEvents,
  parseToolEvent,
  type StoredToolEvent,
  timestampMs,
  toEventRecord,
  TOOL_OUTCOMES,
  type ToolEvent,
  type ToolEventParser,
  toolEventParser,
  type ToolEventRecord,
  type ToolEventVerdict,
  type ToolOutcome,
} from "./tool_event.ts";
export type {
  AppendResult,
  EventStore,
  SessionEvents,
  SessionRange,
  SessionSummary,
} from "./event_store.ts";
export {
  openSqliteDatabase,
  openSqliteEventStore,
  SQLITE_EVENTS_FILE,
  SqliteEventStore,
} from "./sqlite_event_store.ts";
export { openEventStore } from "./open_event_store.ts";
export {
  MAX_PENDING_EVENTS,
  type RecordedCall,
  RECORDER_BATCH_SIZE,
  RECORDER_FLUSH_MS,
  ToolCallRecorder,
  type ToolCallRecorderOptions,
} from "./tool_call_recorder.ts";
export { openPostgresEventStore, postgresLocation } from "./postgres_event_store.ts";
export {
  type BadLine,
  type FormatHint,
  INGEST_FORMATS,
  type IngestFormat,
  type IngestOptions,
  type IngestProgress,
  type IngestReport,
  type IngestSource,
  ingestSources,
} from "./ingest.ts";
export {
  compareChains,
  mineChains,
  type MinedChain,
  type MineOptions,
  type MiningSession,
} from "./mine_chains.ts";
export { cosineTfidf } from "./cosine_tfidf.ts";
/** The condition language is the composite plan's (`lib/tools`). */
export { MAX_CONDITION_CHARS, MAX_CONDITION_DEPTH, parseCondition } from "../tools/mod.ts";
export { StepGraph, type StepNode } from "./step_graph.ts";
export {
  type AnalysisOptions,
  analyzeParameters,
  type ParameterAnalysis,
  returnedBy,
  type SampleStep,
} from "./analyze_parameters.ts";
export {
  checkSynthesizedTool,
  type ErrorStrategy,
  secretConstantProblems,
  sessionConstantProblems,
  stepGraphOf,
  type StepInput,
  SynthesisError,
  SYNTHESIZED_TOOL_SCHEMA,
  type SynthesizedStep,
  type SynthesizedTool,
  toolIdFor,
  type Wire,
  withParallelism,
} from "./synthesized_tool.ts";
export {
  analyzeSamples,
  type ChainInfo,
  type ChainSample,
  errorStrategyFor,
  MAX_EARLIER_OUTPUTS,
  retrieveSamples,
  type SynthesisOptions,
  synthesizeDeterministic,
} from "./synthesize_deterministic.ts";
export {
  compositeLatency,
  DEFAULT_VALIDATION_CONFIG,
  InsufficientDataError,
  matchChain,
  projectSession,
  type ReplaySession,
  selectSessions,
  similarity,
  unhandledFailures,
  validateByReplay,
  type ValidationConfig,
  type ValidationEvidence,
  type ValidationOptions,
  type ValidationResult,
} from "./replay_validation.ts";
export {
  DEFAULT_SYNTHESIZE_CONFIG,
  loadSynthesizeConfig,
  parseSynthesizeConfig,
  type SynthesizeConfig,
} from "./synthesize_config.ts";
export {
  executed,
  type PromotionOptions,
  REGISTRY_ENTRY_SCHEMA,
  type RegistryEntry,
  registryEntryProblems,
  type SkippedEntry,
  SynthesizedRegistry,
  type ToolStatus,
} from "./synthesized_registry.ts";
export { type CompositeRegistration, registerPromotedComposites } from "./promoted_composites.ts";
export {
  type AnsweredCall,
  openToolCallRecording,
  recordedCallOf,
  type ToolCallRecording,
  type ToolCallRecordingOptions,
  toolRegistryWithComposites,
} from "./tool_call_recording.ts";
export { type SavingsReport, savingsReport, type SavingsRow } from "./savings_report.ts";
export {
  CORRECTION_TEMPLATE,
  renderCorrectionPrompt,
  renderSynthesisPrompt,
  SYNTHESIS_TEMPLATE,
} from "./synthesis_prompt.ts";
export { type ModelSynthesisOptions, synthesizeWithModel } from "./synthesize_with_model.ts";
export {
  type ExecutionScore,
  type ExecutionTarget,
  recordedArguments,
  type RecordedRun,
  validateByExecution,
} from "./execution_validation.ts";
export { INGEST_FIRST, loadSessions, type LoadSessionsOptions } from "./load_sessions.ts";
export { mineStoredChains, type StoredChains } from "./mine_stored_chains.ts";
export {
  type SynthesisEngine,
  synthesisEngine,
  type SynthesisEngineOptions,
} from "./synthesis_engine.ts";
export { runSynthesis, type SynthesisRun, type SynthesisRunOptions } from "./run_synthesis.ts";
export {
  type StoredValidation,
  validateStored,
  type ValidateStoredOptions,
} from "./validate_stored.ts";
export { copyTree, openSandboxWorlds, type SandboxTargetOptions } from "./sandbox_target.ts";
export {
  DEFAULT_FRESH_JOBS,
  type FreshExecutionOptions,
  type FreshExecutionScore,
  type FreshSession,
  type FreshWorlds,
  validateInFreshWorlds,
  type World,
} from "./fresh_execution.ts";
export {
  appendSessionOrigin,
  maskCommand,
  readOnlyToolsOf,
  readSessionOrigins,
  SESSION_ORIGINS_FILE,
  type SessionOrigin,
  sessionOriginsPath,
  type UpstreamOrigin,
} from "./session_origins.ts";
export {
  type PipelineExecution,
  type PipelineRow,
  type PipelineStage,
  synthesisPipeline,
  type SynthesisPipelineOptions,
} from "./synthesis_pipeline.ts";
export { type StoredSavingsReport, storedSavingsReport } from "./stored_savings_report.ts";
