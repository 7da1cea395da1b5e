import { SynError } from "../core/mod.ts";
import { compileJsonSchema, type JsonSchemaValidator } from "../schema/mod.ts";
import type { ToolOutcome } from "../tools/mod.ts";
import toolEventSchema from "../../schemas/records/tool-event.schema.json" with { type: "json" };

export type { ToolOutcome };

/** The outcomes a tool event may carry, as `schemas/records/tool-event.schema.json` lists them. */
export const TOOL_OUTCOMES: readonly ToolOutcome[] = ["SUCCESS", "FAILURE", "TIMEOUT"];

/**
 * One recorded tool call as it travels in JSONL (`schemas/records/tool-event.schema.json`):
 * the fields the synthesis spec names, spelled as it spells them.
 */
export interface ToolEventRecord {
  event_id: string;
  session_id: string;
  tool_id: string;
  input_params: Record<string, unknown>;
  output_summary: string | null;
  outcome: ToolOutcome;
  latency_ms: number;
  /** As given: an RFC 3339 date-time string or unix seconds. */
  ts: string | number;
}

/** A checked event: the record plus its time in unix milliseconds (fractions kept). */
export interface ToolEvent extends ToolEventRecord {
  ts_ms: number;
}

/**
 * An event as a store returns it. `seq` grows with every event a store accepts, so it
 * keeps file order among events of equal `ts` (it may have gaps).
 */
export interface StoredToolEvent extends ToolEvent {
  seq: number;
}

/** The verdict on one candidate event: the event, or why it is not one. */
export type ToolEventVerdict =
  | { ok: true; event: ToolEvent }
  | { ok: false; reason: string };

/** Checks one parsed JSON value against the tool event schema. Never throws. */
export type ToolEventParser = (value: unknown) => ToolEventVerdict;

let parser: Promise<ToolEventParser> | undefined;

/**
 * The tool event parser, made once (its validator is generated ahead of time with the
 * other record schemas; compiling it would cost ~100 ms; checking one event takes a few
 * microseconds). Validation goes through `lib/schema`, so its messages read like every
 * other schema error in syn.
 */
export function toolEventParser(): Promise<ToolEventParser> {
  const schema = toolEventSchema as Record<string, unknown>;
  parser ??= compileJsonSchema(schema, { lookFirstIn: "records" }).then(parserFrom);
  return parser;
}

/**
 * Checks one value and returns the event with `ts_ms` added; throws `SynError`
 * `invalid_event` (with the schema issues in `data.errors`) when it is not one.
 */
export async function parseToolEvent(value: unknown): Promise<ToolEvent> {
  const verdict = (await toolEventParser())(value);
  if (!verdict.ok) throw new SynError("invalid_event", `Not a tool event: ${verdict.reason}`);
  return verdict.event;
}

function parserFrom(validate: JsonSchemaValidator): ToolEventParser {
  return (value) => {
    const verdict = validate(value);
    if (!verdict.ok) {
      const shown = verdict.errors.slice(0, 3).map((issue) => `${issue.path || "/"}: ${issue.msg}`);
      return { ok: false, reason: shown.join("; ") };
    }
    const record = value as ToolEventRecord;
    const tsMs = timestampMs(record.ts);
    if (tsMs === undefined) {
      return { ok: false, reason: `/ts: not a valid date-time: ${record.ts}` };
    }
    return {
      ok: true,
      event: {
        event_id: record.event_id,
        session_id: record.session_id,
        tool_id: record.tool_id,
        input_params: record.input_params,
        output_summary: record.output_summary,
        outcome: record.outcome,
        latency_ms: record.latency_ms,
        ts: record.ts,
        ts_ms: tsMs,
      },
    };
  };
}

// RFC 3339 §5.6; a space for "T" is allowed there too ("applications may use a space").
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * A timestamp in unix milliseconds: unix seconds × 1000, or an RFC 3339 date-time read
 * exactly (sub-millisecond digits kept as a fraction, which `Date.parse` would drop, so
 * events microseconds apart stay in order; a leap second counts as the next second's
 * start). `undefined` when it is neither.
 */
export function timestampMs(ts: unknown): number | undefined {
  if (typeof ts === "number") return Number.isFinite(ts) && ts >= 0 ? ts * 1000 : undefined;
  if (typeof ts !== "string") return undefined;
  const match = DATE_TIME.exec(ts);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const offsetMinutes = match[8] ? 0 : (match[9] === "-" ? -1 : 1) *
    (Number(match[10]) * 60 + Number(match[11]));
  if (!match[8] && (Number(match[10]) > 23 || Number(match[11]) > 59)) return undefined;
  const fraction = match[7] ? Number(`0.${match[7]}`) * 1000 : 0;
  // Date.UTC reads years 0–99 as 1900–1999: set the year separately, then add the
  // seconds (a leap second rolls over into the next minute, day or year).
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute));
  date.setUTCFullYear(year);
  return date.getTime() + second * 1000 + fraction - offsetMinutes * 60_000;
}

function daysIn(year: number, month: number): number {
  if (month !== 2) return [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** The order of events within a session: by time, then by the order they were recorded. */
export function compareEvents(a: StoredToolEvent, b: StoredToolEvent): number {
  return a.ts_ms - b.ts_ms || a.seq - b.seq;
}

/** The JSONL form of an event (`ts` as it was given; `ts_ms` and `seq` left out). */
export function toEventRecord(event: ToolEvent): ToolEventRecord {
  return {
    event_id: event.event_id,
    session_id: event.session_id,
    tool_id: event.tool_id,
    input_params: event.input_params,
    output_summary: event.output_summary,
    outcome: event.outcome,
    latency_ms: event.latency_ms,
    ts: event.ts,
  };
}
