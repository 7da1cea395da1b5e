import {
  compareChains,
  type MinedChain,
  type MineOptions,
  type MiningSession,
} from "./mine_chains.ts";

/**
 * The miner written the obvious way — every chain as a joined string, a set per session —
 * kept to check `mineChains` against (tests) and to time it beside it (benchmark).
 */
export function referenceMineChains(
  sessions: readonly MiningSession[],
  options: MineOptions = {},
): MinedChain[] {
  const minLength = Math.max(1, options.minLength ?? 2);
  const maxLength = Math.max(minLength, options.maxLength ?? 6);
  const support = new Map<string, number>();
  const occurrences = new Map<string, { count: number; latency: number; samples: string[] }>();
  for (let index = sessions.length - 1; index >= 0; index--) {
    let events = [...sessions[index].events].map((event) => ({ ...event }));
    if (options.collapseRepeats) {
      const collapsed: typeof events = [];
      for (const event of events) {
        const last = collapsed.at(-1);
        if (last && last.tool_id === event.tool_id) last.latency_ms += event.latency_ms;
        else collapsed.push(event);
      }
      events = collapsed;
    }
    const seen = new Set<string>();
    for (let start = 0; start < events.length; start++) {
      for (let length = 1; length <= maxLength && start + length <= events.length; length++) {
        const run = events.slice(start, start + length);
        const chain = run.map((event) => event.tool_id).join(">");
        if (!seen.has(chain)) {
          seen.add(chain);
          support.set(chain, (support.get(chain) ?? 0) + 1);
        }
        const entry = occurrences.get(chain) ?? { count: 0, latency: 0, samples: [] };
        entry.count++;
        entry.latency += run.reduce((sum, event) => sum + event.latency_ms, 0);
        if (entry.samples.length < 20) entry.samples.push(run[0].event_id);
        occurrences.set(chain, entry);
      }
    }
  }
  const total = sessions.length || 1;
  const chains: MinedChain[] = [];
  for (const [chain, count] of support) {
    const tools = chain.split(">");
    if (tools.length < minLength || count < (options.minSupport ?? 0) * sessions.length - 1e-9) {
      continue;
    }
    const entry = occurrences.get(chain)!;
    const prefix = tools.length > 1 ? support.get(tools.slice(0, -1).join(">")) : undefined;
    chains.push({
      chain,
      tools,
      support: count / total,
      sessions: count,
      confidence: prefix ? count / prefix : 1,
      occurrences: entry.count,
      avg_latency_ms: entry.latency / entry.count,
      sample_event_ids: entry.samples,
    });
  }
  chains.sort(compareChains);
  return options.top === undefined ? chains : chains.slice(0, options.top);
}
