import type { EventStore } from "./event_store.ts";
import type { ValidationResult } from "./replay_validation.ts";
import { runSynthesis } from "./run_synthesis.ts";
import { synthesisEngine } from "./synthesis_engine.ts";
import type { SynthesizeConfig } from "./synthesize_config.ts";
import type { RegistryEntry, SynthesizedRegistry } from "./synthesized_registry.ts";
import {
  type StoredValidation,
  validateStored,
  type ValidateStoredOptions,
} from "./validate_stored.ts";
import type { SessionOrigin } from "./session_origins.ts";

/** What became of one tool the pipeline wrote. */
export interface PipelineRow {
  tool_id: string;
  status: string;
  passed: boolean;
  /** `replay` (recorded values only) or `execution`; null when the tool was not validated. */
  evidence: ValidationResult["evidence"] | null;
  /** Whether the replayed sessions recorded any latency; null when not validated. */
  latency_recorded: boolean | null;
  reason: string | null;
}

/** Progress, once per stage and once per validated tool. */
export type PipelineStage =
  | { stage: "mine"; sessions: number; chains: number }
  | { stage: "synthesize"; written: number }
  | { stage: "validate"; row: PipelineRow };

export interface SynthesisPipelineOptions {
  config: SynthesizeConfig;
  /** How many of the most frequent chains to synthesize. Default 3. */
  top?: number;
  /** Smallest support a chain needs. Default 0. */
  minSupport?: number;
  /** The hint after "no events in <store>:" when the store is empty. */
  emptyHint?: string;
  onStage?: (stage: PipelineStage) => void | Promise<void>;
  /** Dates the validations; default `Date.now`. */
  now?: () => number;
  /** Each recorded session's origin (which tools are read-only; how to start fresh worlds). */
  origins?: ReadonlyMap<string, SessionOrigin>;
  /**
   * How a written tool is executed while it is validated (fresh worlds, or a live read-only
   * server); none: replay only. Disposed of after the tool's validation.
   */
  execution?: (entry: RegistryEntry) => Promise<PipelineExecution | undefined>;
  /** Promote on replay evidence alone (when approval is not required). Default: never. */
  allowReplayOnly?: boolean;
}

/** An execution for one tool's validation, released when it is done. */
export interface PipelineExecution extends AsyncDisposable {
  fresh?: ValidateStoredOptions["fresh"];
  target?: ValidateStoredOptions["target"];
}

/**
 * Mine → write a tool for each top chain (the offline synthesizer) → validate each by
 * replay, and by execution where `execution` gives one: a tool that passes becomes TESTING
 * (PROMOTED when approval is not required and it was executed, or replay alone is
 * accepted), one that fails or lacks sessions stays DRAFT. One row per tool written.
 */
export async function synthesisPipeline(
  store: EventStore,
  registry: SynthesizedRegistry,
  options: SynthesisPipelineOptions,
): Promise<PipelineRow[]> {
  const { config, onStage } = options;
  const { written } = await runSynthesis(store, registry, {
    engine: synthesisEngine("deterministic", config),
    top: options.top ?? 3,
    minSupport: options.minSupport,
    emptyHint: options.emptyHint,
    origins: options.origins,
    onMined: async ({ sessions, chains }) =>
      await onStage?.({ stage: "mine", sessions, chains: chains.length }),
  });
  await onStage?.({ stage: "synthesize", written: written.length });
  const rows: PipelineRow[] = [];
  for (const entry of written) {
    await using execution = await options.execution?.(entry);
    const outcome = await validateStored(store, registry, {
      entry,
      config,
      now: options.now,
      fresh: execution?.fresh,
      target: execution?.target,
      allowReplayOnly: options.allowReplayOnly,
    });
    const row = pipelineRow(entry, outcome);
    rows.push(row);
    await onStage?.({ stage: "validate", row });
  }
  return rows;
}

function pipelineRow(entry: RegistryEntry, outcome: StoredValidation): PipelineRow {
  const tool_id = entry.tool.tool_id;
  if ("insufficient" in outcome) {
    return {
      tool_id,
      status: "DRAFT",
      passed: false,
      evidence: null,
      latency_recorded: null,
      reason: outcome.insufficient,
    };
  }
  const { result, status } = outcome;
  return {
    tool_id,
    status,
    passed: result.passed,
    evidence: result.evidence,
    latency_recorded: result.latency.recorded,
    reason: result.reasons.join("; ") || null,
  };
}
