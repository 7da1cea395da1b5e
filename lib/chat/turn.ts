import { SynError } from "../core/mod.ts";

/** Turn types of the trace; a completed reply is one `SPEECH` turn (K-gent API §B3). */
export const TURN_TYPES = ["SPEECH", "ACTION", "THOUGHT", "YIELD"] as const;
export type TurnType = typeof TURN_TYPES[number];

/** A completed, immutable turn: the only unit of a reply that persists (K-gent API §B3, §B4). */
export interface Turn {
  readonly id: string;
  readonly content: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly source: string;
  readonly turn_type: TurnType;
  readonly state_hash_pre: string;
  readonly state_hash_post: string;
  readonly confidence: number;
  readonly entropy_cost: number;
}

const FIELDS = [
  "id",
  "content",
  "timestamp",
  "source",
  "turn_type",
  "state_hash_pre",
  "state_hash_post",
  "confidence",
  "entropy_cost",
] as const;

/** A frozen turn, dated by the caller (from its `Clock`); `id` is filled when left out. */
export function createTurn(fields: Omit<Turn, "id"> & { id?: string }): Turn {
  return Object.freeze({
    id: fields.id ?? `turn-${crypto.randomUUID()}`,
    content: fields.content,
    timestamp: fields.timestamp,
    source: fields.source,
    turn_type: fields.turn_type,
    state_hash_pre: fields.state_hash_pre,
    state_hash_post: fields.state_hash_post,
    confidence: fields.confidence,
    entropy_cost: fields.entropy_cost,
  });
}

/** The wire/storage form (K-gent API §B4), with the spec's keys in the spec's order. */
export function turnToDict(turn: Turn): Record<string, unknown> {
  const dict: Record<string, unknown> = {};
  for (const field of FIELDS) dict[field] = turn[field];
  return dict;
}

/**
 * The inverse of `turnToDict` (law: `turnFromDict(turnToDict(t))` equals `t`). Throws
 * `SynError` `invalid_turn` naming the first field that is missing or of the wrong type.
 */
export function turnFromDict(data: unknown): Turn {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SynError("invalid_turn", "A turn must be an object");
  }
  const record = data as Record<string, unknown>;
  for (const field of ["id", "content", "source", "state_hash_pre", "state_hash_post"] as const) {
    if (typeof record[field] !== "string") throw invalid(field, "a string");
  }
  for (const field of ["timestamp", "confidence", "entropy_cost"] as const) {
    if (typeof record[field] !== "number" || !Number.isFinite(record[field])) {
      throw invalid(field, "a finite number");
    }
  }
  if (!TURN_TYPES.includes(record.turn_type as TurnType)) {
    throw invalid("turn_type", TURN_TYPES.join(" | "));
  }
  return createTurn(record as unknown as Turn);
}

function invalid(field: string, expected: string): SynError {
  return new SynError("invalid_turn", `Turn field ${field} must be ${expected}`, { field });
}

/**
 * A trace: turns in causal order. Composition (`>>`) is concatenation, so it is
 * associative and the empty trace is its identity (K-gent API §5).
 */
export type Trace = readonly Turn[];

export function composeTraces(first: Trace, second: Trace): Trace {
  return Object.freeze([...first, ...second]);
}
