/** The error codes a tool result can carry (Spectator contracts §3, plus the sandbox's own). */
export const TOOL_ERROR_CODES = [
  "invalid_args",
  "unknown_tool",
  "path_escape",
  "not_allowed",
  "capability_required",
  "timeout",
  "too_large",
  "exists",
  "not_found",
  "io_error",
  "sandbox_unavailable",
] as const;

export type ToolErrorCode = typeof TOOL_ERROR_CODES[number];

/** Why a call did not succeed. `message` is safe to show: no secret, no stack. */
export interface ToolError {
  code: ToolErrorCode;
  message: string;
}

/** A tool call as the model writes it inside a TOOL_CALLS block (Spectator §3). */
export interface ToolCall {
  id: string;
  tool: string;
  args: Record<string, unknown>;
}

/** The result of one call (Spectator §3): `ok` with `output`, or not with `error`. */
export interface ToolResult {
  id: string;
  tool: string;
  ok: boolean;
  output: unknown;
  error: ToolError | null;
}

/** `SUCCESS|FAILURE|TIMEOUT`, the outcome field of a tool event (synthesize's event store). */
export type ToolOutcome = "SUCCESS" | "FAILURE" | "TIMEOUT";

/** A trace event as Spectator §6 defines it: `ts` in unix seconds, a `kind`, a `data` object. */
export interface ToolTraceEvent {
  ts: number;
  kind: "tool_start" | "tool_done";
  data: Record<string, unknown>;
}

/** Where trace events go (a JSONL file, a chat trace, a test array). */
export type ToolTraceSink = (event: ToolTraceEvent) => void | Promise<void>;
