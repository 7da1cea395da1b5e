import { UsageError } from "../core/mod.ts";
import { baselineRegistry, compositeProblems, outputSummary, ToolSession } from "../tools/mod.ts";
import type { ExecutionTarget } from "./execution_validation.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** An execution target open on a tool session; disposing of it closes the session. */
export interface SandboxTarget extends AsyncDisposable {
  target: ExecutionTarget;
}

/** The sandbox a composite runs in: its root folder and the capabilities granted. */
export interface SandboxTargetOptions {
  root: string;
  granted?: string[];
}

/**
 * A tool session in `root` whose tools (syn's own) run this — not yet promoted —
 * composite's steps. A step that names a tool syn does not have, or a condition that does
 * not parse, is a `UsageError`.
 */
export async function openSandboxTarget(
  tool: SynthesizedTool,
  options: SandboxTargetOptions,
): Promise<SandboxTarget> {
  const tools = await baselineRegistry();
  const problems = compositeProblems(tool, (name) => tools.get(name) !== undefined);
  if (problems.length) {
    throw new UsageError(`cannot execute ${tool.tool_id}: ${problems.join("; ")}`);
  }
  const session = await ToolSession.open({
    root: options.root,
    registry: tools,
    granted: options.granted ?? [],
  });
  const target: ExecutionTarget = {
    execute: (name, args) => session.call({ id: crypto.randomUUID(), tool: name, args }),
    summarize: outputSummary,
    where: "in the sandbox",
    rerunOriginals: false,
  };
  return { target, [Symbol.asyncDispose]: async () => await session.close() };
}
