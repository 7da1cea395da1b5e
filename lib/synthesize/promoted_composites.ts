/**
 * Closes the loop: the PROMOTED tools of a state folder become `composite.<tool_id>` tools
 * in a tool registry, so a chat session offers and runs them like any other tool. A file
 * that is not a valid entry, and a composite whose steps are not plain tools of that
 * registry (a chain mined from another system's traces, or another composite), is left
 * out, with the reason.
 */
import { compositeProblems, compositeToolDescriptor, type ToolRegistry } from "../tools/mod.ts";
import { type SkippedEntry, SynthesizedRegistry } from "./synthesized_registry.ts";

export interface CompositeRegistration {
  registered: string[];
  /** By tool id, or by file name for a file that is not a valid entry. */
  skipped: { tool_id: string; problems: string[] }[];
}

export async function registerPromotedComposites(
  registry: ToolRegistry,
  stateDir: string,
): Promise<CompositeRegistration> {
  const report: CompositeRegistration = { registered: [], skipped: [] };
  const onSkip = (skipped: SkippedEntry) =>
    report.skipped.push({ tool_id: skipped.file, problems: skipped.problems });
  for (const tool of await new SynthesizedRegistry(stateDir).promoted(onSkip)) {
    const known = (name: string) => registry.get(name) !== undefined;
    const problems = compositeProblems(tool, known);
    if (problems.length) {
      report.skipped.push({ tool_id: tool.tool_id, problems });
      continue;
    }
    const descriptor = compositeToolDescriptor(tool, {
      stepEffects: (name) => registry.get(name)?.effects,
    });
    if (registry.get(descriptor.name)) continue;
    await registry.register(descriptor);
    report.registered.push(descriptor.name);
  }
  return report;
}
