/**
 * What a `tools/call` result becomes in syn: the output a tool event records (structured
 * content as JSON, else the text content; capped by the recorder) and the value a
 * composite's next step is wired from (the structured content, else the text). Both read
 * the same parts of the result, so wires found in recordings hold when the composite runs.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { isRecord } from "../core/mod.ts";
import type { RecordedCall } from "../synthesize/mod.ts";
import { capSummary, type ToolOutcome, type ToolResult } from "../tools/mod.ts";

/** The text of a result's content: text parts joined by newlines, other parts named. */
function contentText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content.map((part) => {
    if (part.type === "text") return part.text;
    if (part.type === "resource_link") return `[resource ${part.uri}]`;
    return `[${part.type}${"mimeType" in part && part.mimeType ? ` ${part.mimeType}` : ""}]`;
  }).join("\n");
}

/** The value a step's output is: structured content when there is some, else the text. */
export function stepOutput(result: CallToolResult): unknown {
  return result.structuredContent !== undefined && isRecord(result.structuredContent)
    ? result.structuredContent
    : contentText(result);
}

/**
 * A step output (or any value) as a summary: text as it is, anything else as JSON; capped
 * as the recorder caps what it records, so executed and recorded outputs compare alike.
 */
export function summarizeOutput(output: unknown): string {
  return capSummary(typeof output === "string" ? output : JSON.stringify(output) ?? "null");
}

/** What the recorder keeps of a call result: its step output, as text or as JSON. */
export function recordedOutput(result: CallToolResult): RecordedCall["output"] {
  const output = stepOutput(result);
  return typeof output === "string" ? { text: output } : { structured: output };
}

/** `FAILURE` for a result with `isError`, else `SUCCESS`. */
export function resultOutcome(result: CallToolResult): ToolOutcome {
  return result.isError === true ? "FAILURE" : "SUCCESS";
}

/** The outcome of a call that threw: `TIMEOUT` for a request timeout, else `FAILURE`. */
export function errorOutcome(error: unknown): ToolOutcome {
  const code = isRecord(error) ? error.code : undefined;
  const name = error instanceof Error ? error.name : "";
  // -32001: the SDK's RequestTimeout code.
  return code === -32001 || name === "TimeoutError" ? "TIMEOUT" : "FAILURE";
}

/** A call result as the composite plan's step result: `ok` unless `isError`. */
export function stepResult(tool: string, result: CallToolResult): ToolResult {
  const output = stepOutput(result);
  return result.isError === true
    ? {
      id: tool,
      tool,
      ok: false,
      output: null,
      error: { code: "io_error", message: summarizeOutput(output).slice(0, 500) },
    }
    : { id: tool, tool, ok: true, output, error: null };
}

/** A thrown call error as a step result. */
export function stepError(tool: string, error: unknown): ToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    id: tool,
    tool,
    ok: false,
    output: null,
    error: {
      code: errorOutcome(error) === "TIMEOUT" ? "timeout" : "io_error",
      message: message.slice(0, 500),
    },
  };
}
