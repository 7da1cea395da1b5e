import type { EventStore } from "./event_store.ts";
import type { ExecutionTarget } from "./execution_validation.ts";
import {
  InsufficientDataError,
  validateByReplay,
  type ValidationOptions,
  type ValidationResult,
} from "./replay_validation.ts";
import type { SynthesizeConfig } from "./synthesize_config.ts";
import type { RegistryEntry, SynthesizedRegistry } from "./synthesized_registry.ts";

/** A validation's result and the status the tool moved to, or why it was not validated. */
export type StoredValidation =
  | { result: ValidationResult; status: string }
  | { insufficient: string };

/** The tool, the limits it is held to, where it runs and the clock that dates the result. */
export interface ValidateStoredOptions {
  entry: RegistryEntry;
  /** `validation` thresholds, and `synthesis.require_approval`. */
  config: SynthesizeConfig;
  /** Also execute the composite against a live, read-only upstream; default: replay only. */
  target?: ExecutionTarget;
  /** Also execute it in fresh worlds, one pair per session (the only way writes run). */
  fresh?: ValidationOptions["fresh"];
  /** Default `Date.now`. */
  now?: () => number;
  /** Promote (where approval is not required) on replay evidence alone. Default: never. */
  allowReplayOnly?: boolean;
}

/**
 * Validates a stored tool against the store's sessions, records the result in the registry
 * and moves the tool on (TESTING, or PROMOTED when approval is not required, or back to
 * DRAFT). Too few sessions holding its chain give `{ insufficient }` and change nothing.
 */
export async function validateStored(
  store: EventStore,
  registry: SynthesizedRegistry,
  options: ValidateStoredOptions,
): Promise<StoredValidation> {
  const { entry, config, target, fresh, now = Date.now } = options;
  try {
    const result = await validateByReplay(store, entry.tool, {
      config: config.validation,
      now,
      target,
      fresh,
    });
    const saved = await registry.recordValidation(
      entry.tool.tool_id,
      result,
      {
        requireApproval: config.synthesis.require_approval,
        allowReplayOnly: options.allowReplayOnly,
      },
    );
    return { result, status: saved.status };
  } catch (error) {
    if (error instanceof InsufficientDataError) return { insufficient: error.message };
    throw error;
  }
}
