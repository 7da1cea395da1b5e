/**
 * Composites over the upstream's tools: the promoted composites of the state folder whose
 * steps are all tools the upstream lists, offered as `composite.<tool_id>` and run by the
 * one composite plan, each step a `tools/call` to the upstream. A composite with a step
 * the upstream does not mark read-only is offered only when writes are allowed.
 */
import type { CallToolResult, Client, Tool, ToolAnnotations } from "@modelcontextprotocol/client";
import {
  compositeArgumentProblems,
  compositeCallResult,
  compositeDescription,
  type CompositeOutcome,
  compositeProblems,
  runComposite,
  type StepExecutor,
  type ToolResult,
} from "../tools/mod.ts";
import type { SynthesizedTool } from "../synthesize/mod.ts";
import { stepError, stepResult } from "./call_result.ts";

/** A composite the proxy offers: its MCP tool, its definition, and which steps are read-only. */
export interface OfferedComposite {
  tool: Tool;
  definition: SynthesizedTool;
  /** The step tools the upstream annotates read-only now (only those may overlap). */
  readOnlyTools: ReadonlySet<string>;
}

/** The composites offered, and why the others are not. */
export interface CompositeOffer {
  offered: OfferedComposite[];
  skipped: { tool_id: string; reason: string }[];
}

/** Whether the upstream marks a tool read-only (`readOnlyHint: true`; the default is false). */
export function isReadOnly(tool: Tool | undefined): boolean {
  return tool?.annotations?.readOnlyHint === true;
}

/**
 * The annotations of a composite: the most permissive of its steps' — read-only only when
 * every step is, destructive when any step may be (a step that is not read-only is
 * destructive unless it says otherwise), idempotent only when every step is, open-world
 * when any step may be (the MCP defaults).
 */
export function compositeAnnotations(steps: readonly Tool[]): ToolAnnotations {
  const hints = steps.map((tool) => tool.annotations ?? {});
  const readOnly = hints.every((hint) => hint.readOnlyHint === true);
  return {
    readOnlyHint: readOnly,
    ...(readOnly ? {} : {
      destructiveHint: hints.some((hint) =>
        hint.readOnlyHint !== true && hint.destructiveHint !== false
      ),
      idempotentHint: hints.every((hint) =>
        hint.readOnlyHint === true || hint.idempotentHint === true
      ),
    }),
    openWorldHint: hints.some((hint) => hint.openWorldHint !== false),
  };
}

/** Which promoted composites the upstream's tools can run, and how they are offered. */
export function offerComposites(
  promoted: readonly SynthesizedTool[],
  upstreamTools: readonly Tool[],
  options: { allowWrites: boolean },
): CompositeOffer {
  const byName = new Map(upstreamTools.map((tool) => [tool.name, tool]));
  const offer: CompositeOffer = { offered: [], skipped: [] };
  for (const definition of promoted) {
    const name = `composite.${definition.tool_id}`;
    const problems = compositeProblems(definition, (tool) => byName.has(tool));
    if (problems.length) {
      offer.skipped.push({ tool_id: definition.tool_id, reason: problems.join("; ") });
      continue;
    }
    if (byName.has(name)) {
      offer.skipped.push({ tool_id: definition.tool_id, reason: `the upstream has ${name}` });
      continue;
    }
    const steps = definition.steps.map((step) => byName.get(step.tool_id)!);
    const writes = steps.filter((tool) => !isReadOnly(tool)).map((tool) => tool.name);
    if (writes.length && !options.allowWrites) {
      offer.skipped.push({
        tool_id: definition.tool_id,
        reason: `${[...new Set(writes)].join(", ")} not read-only: offered with --allow-writes`,
      });
      continue;
    }
    const tool: Tool = {
      name,
      description: compositeDescription(definition),
      inputSchema: definition.parameters as Tool["inputSchema"],
      annotations: compositeAnnotations(steps),
    };
    const readOnlyTools = new Set(steps.filter(isReadOnly).map((step) => step.name));
    offer.offered.push({ tool, definition, readOnlyTools });
  }
  return offer;
}

/** Runs each step as a `tools/call` to the upstream; `onResult` sees every full result. */
export function upstreamStepExecutor(
  client: Client,
  onResult: (tool: string, result: CallToolResult) => void = () => {},
): StepExecutor {
  return async (tool, args, signal): Promise<ToolResult> => {
    try {
      const result = await client.callTool({ name: tool, arguments: args }, { signal });
      onResult(tool, result as CallToolResult);
      return stepResult(tool, result as CallToolResult);
    } catch (error) {
      return stepError(tool, error);
    }
  };
}

/** A composite's outcome as an MCP tool result: every step, structured and as text. */
export function compositeToolResult(outcome: CompositeOutcome): CallToolResult {
  const result = compositeCallResult(outcome);
  return {
    content: [{ type: "text", text: result.text }],
    structuredContent: result.structured,
    ...(result.isError ? { isError: true } : {}),
  };
}

/**
 * One composite call through the upstream. The arguments are checked against the
 * composite's parameters first (a bad call is an `isError` result naming the pointer, and
 * no upstream call is made); then its steps run in order, overlapping only where the plan
 * allows and the upstream still annotates every overlapping step read-only. The result
 * carries every step's output (`compositeToolResult`).
 */
export async function callComposite(
  client: Client,
  offered: OfferedComposite,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; deadlineMs: number },
): Promise<CallToolResult> {
  const problems = await compositeArgumentProblems(offered.definition, args);
  if (problems.length) {
    const text = `invalid arguments for ${offered.tool.name}: ${problems.join("; ")}`;
    return { content: [{ type: "text", text }], isError: true };
  }
  const execute = upstreamStepExecutor(client);
  const outcome = await runComposite(offered.definition, args, {
    execute: (tool, stepArgs, signal) =>
      execute(tool, stepArgs, AbortSignal.any([signal, options.signal])),
    deadlineMs: options.deadlineMs,
    readOnly: (tool) => offered.readOnlyTools.has(tool),
  });
  return compositeToolResult(outcome);
}
