import { applyCapabilityAction, type CapabilityState } from "../tools/mod.ts";

/** The persisted long-lived agent state (Spectator contracts §1.1). */
export interface ChatState extends CapabilityState {
  goals: string[];
  open_loops: string[];
  decisions: string[];
  constraints: string[];
  episode_summary: string;
  memory_tags: string[];
  memory_refs: string[];
  capabilities_granted: string[];
  capabilities_pending: string[];
}

export function emptyChatState(): ChatState {
  return {
    goals: [],
    open_loops: [],
    decisions: [],
    constraints: [],
    episode_summary: "",
    memory_tags: [],
    memory_refs: [],
    capabilities_granted: [],
    capabilities_pending: [],
  };
}

/** A NOTES patch (Spectator §2); absent keys mean no change. */
export interface NotesPatch {
  set_goals?: string[];
  add_open_loops?: string[];
  close_open_loops?: string[];
  add_decisions?: string[];
  add_constraints?: string[];
  set_episode_summary?: string;
  add_memory_tags?: string[];
  actions?: string[];
}

const LIST_KEYS = [
  "set_goals",
  "add_open_loops",
  "close_open_loops",
  "add_decisions",
  "add_constraints",
  "add_memory_tags",
  "actions",
] as const;

/** Limits so a model cannot grow the state without bound. */
const MAX_ITEMS = 200;
const MAX_ITEM_CHARS = 2000;
const MAX_SUMMARY_CHARS = 8000;

/**
 * Checks a parsed NOTES payload: an object whose known keys have the right types; unknown
 * keys are reported and ignored. Returns the patch and the problems found (a malformed
 * block is traced and answered, never fatal).
 */
export function parseNotesPatch(value: unknown): { patch: NotesPatch; problems: string[] } {
  const problems: string[] = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { patch: {}, problems: ["NOTES payload must be a JSON object"] };
  }
  const record = value as Record<string, unknown>;
  const patch: NotesPatch = {};
  for (const key of Object.keys(record)) {
    if ((LIST_KEYS as readonly string[]).includes(key)) {
      const list = record[key];
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
        problems.push(`${key} must be a list of strings`);
        continue;
      }
      patch[key as typeof LIST_KEYS[number]] = list.slice(0, MAX_ITEMS).map((item) =>
        item.slice(0, MAX_ITEM_CHARS)
      );
    } else if (key === "set_episode_summary") {
      if (typeof record[key] !== "string") problems.push(`${key} must be a string`);
      else patch.set_episode_summary = (record[key] as string).slice(0, MAX_SUMMARY_CHARS);
    } else {
      problems.push(`unknown key ignored: ${key.slice(0, 64)}`);
    }
  }
  return { patch, problems };
}

function addUnique(list: readonly string[], items: readonly string[] = []): string[] {
  const result = [...list];
  for (const item of items) if (!result.includes(item)) result.push(item);
  return result.slice(-MAX_ITEMS);
}

/** Applies a patch's state changes (not its actions) and returns the new state. */
export function applyNotesPatch(state: ChatState, patch: NotesPatch): ChatState {
  const closed = new Set(patch.close_open_loops ?? []);
  return {
    ...state,
    goals: patch.set_goals ? [...patch.set_goals] : state.goals,
    open_loops: addUnique(state.open_loops, patch.add_open_loops).filter((loop) =>
      !closed.has(loop)
    ),
    decisions: addUnique(state.decisions, patch.add_decisions),
    constraints: addUnique(state.constraints, patch.add_constraints),
    episode_summary: patch.set_episode_summary ?? state.episode_summary,
    memory_tags: addUnique(state.memory_tags, patch.add_memory_tags),
  };
}

/** What running a patch's actions did, for the `actions` trace event. */
export interface ActionOutcome {
  action: string;
  applied: boolean;
  reason?: string;
}

/**
 * Runs a patch's actions after the patch (Spectator §2): `request_permission:<cap>`
 * makes a capability pending (a `grant_permission` from the model is refused: only the
 * user grants); `condense_now` / `condense_smart` are returned for the caller to run;
 * anything else is ignored and reported.
 */
export function runNotesActions(
  state: ChatState,
  actions: readonly string[],
): {
  state: ChatState;
  outcomes: ActionOutcome[];
  condense: ("condense_now" | "condense_smart")[];
} {
  let current = state;
  const outcomes: ActionOutcome[] = [];
  const condense: ("condense_now" | "condense_smart")[] = [];
  for (const action of actions) {
    if (action === "condense_now" || action === "condense_smart") {
      condense.push(action);
      outcomes.push({ action, applied: true });
      continue;
    }
    if (action.startsWith("grant_permission:")) {
      // A model granting itself a capability would make the gate meaningless: grants come
      // from the user (`/grant`, `--grant`), the model may only ask.
      outcomes.push({
        action: action.slice(0, 256),
        applied: false,
        reason: "grants come from the user, not the model",
      });
      continue;
    }
    const result = applyCapabilityAction(current, action);
    current = {
      ...current,
      capabilities_granted: [...result.state.capabilities_granted],
      capabilities_pending: [...result.state.capabilities_pending],
    };
    outcomes.push({ action: action.slice(0, 256), applied: result.applied, reason: result.reason });
  }
  return { state: current, outcomes, condense };
}
