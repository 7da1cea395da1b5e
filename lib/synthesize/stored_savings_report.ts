import type { EventStore } from "./event_store.ts";
import { loadSessions } from "./load_sessions.ts";
import { type SavingsReport, savingsReport } from "./savings_report.ts";
import type { SynthesizedRegistry, ToolStatus } from "./synthesized_registry.ts";

/** The savings of the registry's composites of some statuses, and how many there are. */
export interface StoredSavingsReport {
  composites: number;
  report: SavingsReport;
}

/**
 * On every stored session, the tool calls (and LLM round trips) the registry's composites
 * of `statuses` would have saved. An empty store gives a report of zeros.
 */
export async function storedSavingsReport(
  store: EventStore,
  registry: SynthesizedRegistry,
  options: { statuses: readonly ToolStatus[] },
): Promise<StoredSavingsReport> {
  const { statuses } = options;
  const tools = (await registry.list())
    .filter((entry) => statuses.includes(entry.status))
    .map((entry) => ({ tool_id: entry.tool.tool_id, chain: entry.tool.source_chain.tools }));
  const sessions = await loadSessions(store);
  return { composites: tools.length, report: savingsReport(sessions, tools) };
}
