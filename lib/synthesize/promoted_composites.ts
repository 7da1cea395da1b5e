/**
 * Closes the loop: the PROMOTED tools of a state folder become `composite.<tool_id>` tools
 * in a tool registry, so a chat session offers and runs them like any other tool. A
 * composite whose steps are not tools of that registry (a chain mined from another
 * system's traces) is left out, with the reason.
 */
import { compositeProblems, compositeToolDescriptor, type ToolRegistry } from "../tools/mod.ts";
import { parseCondition } from "./condition_expression.ts";
import { SynthesizedRegistry } from "./synthesized_registry.ts";

export interface CompositeRegistration {
  registered: string[];
  skipped: { tool_id: string; problems: string[] }[];
}

export async function registerPromotedComposites(
  registry: ToolRegistry,
  stateDir: string,
): Promise<CompositeRegistration> {
  const report: CompositeRegistration = { registered: [], skipped: [] };
  for (const tool of await new SynthesizedRegistry(stateDir).promoted()) {
    const known = (name: string) => registry.get(name) !== undefined;
    const problems = compositeProblems(tool, known, parseCondition);
    if (problems.length) {
      report.skipped.push({ tool_id: tool.tool_id, problems });
      continue;
    }
    const descriptor = compositeToolDescriptor(tool, parseCondition);
    if (registry.get(descriptor.name)) continue;
    await registry.register(descriptor);
    report.registered.push(descriptor.name);
  }
  return report;
}
