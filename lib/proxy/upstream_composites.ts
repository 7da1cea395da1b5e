/**
 * Composites over the upstream's tools: the promoted composites of the state folder whose
 * steps are all tools the upstream lists, offered as `composite.<tool_id>` and run by the
 * one composite plan, each step a `tools/call` to the upstream. A composite with a step
 * the upstream does not mark read-only is offered only when writes are allowed.
 */
import type { CallToolResult, Client, Tool, ToolAnnotations } from "@modelcontextprotocol/client";
import {
  compositeDescription,
  compositeProblems,
  runComposite,
  type StepExecutor,
  type ToolResult,
} from "../tools/mod.ts";
import type { SynthesizedTool } from "../synthesize/mod.ts";
import { stepError, stepResult, summarizeOutput } from "./call_result.ts";

/** A composite the proxy offers: its MCP tool and its definition. */
export interface OfferedComposite {
  tool: Tool;
  definition: SynthesizedTool;
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
    offer.offered.push({ tool, definition });
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

/**
 * One composite call through the upstream: the last step's own result when it ran, else
 * an `isError` result naming the step that stopped the composite.
 */
export async function callComposite(
  client: Client,
  offered: OfferedComposite,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; deadlineMs: number },
): Promise<CallToolResult> {
  const last = offered.definition.steps.length - 1;
  const lastTool = offered.definition.steps[last].tool_id;
  let lastResult: CallToolResult | undefined;
  const execute = upstreamStepExecutor(client, (tool, result) => {
    if (tool === lastTool) lastResult = result;
  });
  try {
    const outcome = await runComposite(offered.definition, args, {
      execute: (tool, stepArgs, signal) =>
        execute(tool, stepArgs, AbortSignal.any([signal, options.signal])),
      deadlineMs: options.deadlineMs,
    });
    const report = outcome.steps[last];
    if (report?.status === "ok" && lastResult) return lastResult;
    const text = `the composite ended without its last step: ${
      summarizeOutput(outcome.steps.filter(Boolean))
    }`;
    return { content: [{ type: "text", text }], isError: true };
  } catch (error) {
    return { content: [{ type: "text", text: (error as Error).message }], isError: true };
  }
}
