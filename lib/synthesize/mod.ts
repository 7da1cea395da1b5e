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
  type ToolEvent,
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
export { openSqliteEventStore, SqliteEventStore } from "./sqlite_event_store.ts";
export { openEventStore } from "./open_event_store.ts";
export {
  type RecordedCall,
  ToolCallRecorder,
  type ToolCallRecorderOptions,
} from "./tool_call_recorder.ts";
export { openPostgresEventStore } from "./postgres_event_store.ts";
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
  mineChains,
  type MinedChain,
  type MineOptions,
  type MiningSession,
} from "./mine_chains.ts";
/** The condition language is the composite plan's (`lib/tools`). */
export { MAX_CONDITION_CHARS, MAX_CONDITION_DEPTH, parseCondition } from "../tools/mod.ts";
export { StepGraph, type StepNode } from "./step_graph.ts";
export { type ParameterAnalysis, type SampleStep } from "./analyze_parameters.ts";
export {
  type ErrorStrategy,
  type StepInput,
  SynthesisError,
  SYNTHESIZED_TOOL_SCHEMA,
  type SynthesizedStep,
  type SynthesizedTool,
  type Wire,
} from "./synthesized_tool.ts";
export { type ChainInfo, type ChainSample } from "./synthesize_deterministic.ts";
export {
  type ReplaySession,
  similarity,
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
  type SkippedEntry,
  SynthesizedRegistry,
  type ToolStatus,
} from "./synthesized_registry.ts";
export { type CompositeRegistration, registerPromotedComposites } from "./promoted_composites.ts";
export {
  type AnsweredCall,
  openToolCallRecording,
  type ToolCallRecording,
  type ToolCallRecordingOptions,
  toolRegistryWithComposites,
} from "./tool_call_recording.ts";
export { type SavingsReport, type SavingsRow } from "./savings_report.ts";
export {
  type ExecutionScore,
  type ExecutionTarget,
  type RecordedRun,
} from "./execution_validation.ts";
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
  type FreshExecutionScore,
  type FreshSession,
  type FreshWorlds,
  type World,
} from "./fresh_execution.ts";
export { readSessionOrigins, type SessionOrigin, type UpstreamOrigin } from "./session_origins.ts";
export {
  type PipelineExecution,
  type PipelineRow,
  type PipelineStage,
  synthesisPipeline,
  type SynthesisPipelineOptions,
} from "./synthesis_pipeline.ts";
export { type StoredSavingsReport, storedSavingsReport } from "./stored_savings_report.ts";
