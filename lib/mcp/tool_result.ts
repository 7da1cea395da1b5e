/** A tool's answer: always an object with a boolean `ok` (MCP spec §4). */
export type ToolResult = Record<string, unknown> & { ok: boolean };

/** The spec's payload-too-large result (MCP spec §3, §6). */
export const PAYLOAD_TOO_LARGE_RESULT: ToolResult = Object.freeze({
  ok: false,
  reason: "validation_failed",
  errors: [{ path: "", msg: "payload_too_large" }],
}) as ToolResult;
