/**
 * What promoted composites would have saved on a corpus: every non-overlapping run of a
 * composite's chain in a session becomes one call, so a chain of length k saves k − 1
 * tool calls and k − 1 LLM round trips (each call is one model turn in an agent loop).
 * Longer chains are collapsed first.
 */
import { compareCodePoints } from "../core/mod.ts";
import type { MiningSession } from "./mine_chains.ts";

export interface SavingsRow {
  tool_id: string;
  chain: string[];
  occurrences: number;
  sessions: number;
  calls_saved: number;
}

export interface SavingsReport {
  sessions: number;
  calls: number;
  rows: SavingsRow[];
  calls_saved: number;
  /** calls_saved ÷ calls: also the share of LLM round trips saved. */
  share_saved: number;
}

export function savingsReport(
  sessions: readonly MiningSession[],
  tools: readonly { tool_id: string; chain: readonly string[] }[],
): SavingsReport {
  const ordered = [...tools].sort((a, b) =>
    b.chain.length - a.chain.length || compareCodePoints(a.tool_id, b.tool_id)
  );
  const rows = new Map<string, SavingsRow>(ordered.map((tool) => [tool.tool_id, {
    tool_id: tool.tool_id,
    chain: [...tool.chain],
    occurrences: 0,
    sessions: 0,
    calls_saved: 0,
  }]));
  let calls = 0;
  for (const session of sessions) {
    const ids = session.events.map((event) => event.tool_id);
    calls += ids.length;
    const used = new Array<boolean>(ids.length).fill(false);
    for (const tool of ordered) {
      const row = rows.get(tool.tool_id)!;
      let found = 0;
      for (let start = 0; start + tool.chain.length <= ids.length; start++) {
        const fits = tool.chain.every((name, offset) =>
          ids[start + offset] === name && !used[start + offset]
        );
        if (!fits) continue;
        for (let offset = 0; offset < tool.chain.length; offset++) used[start + offset] = true;
        found++;
        start += tool.chain.length - 1;
      }
      if (found) {
        row.occurrences += found;
        row.sessions++;
        row.calls_saved += found * (tool.chain.length - 1);
      }
    }
  }
  const list = [...rows.values()];
  const saved = list.reduce((sum, row) => sum + row.calls_saved, 0);
  return {
    sessions: sessions.length,
    calls,
    rows: list,
    calls_saved: saved,
    share_saved: calls ? saved / calls : 0,
  };
}
