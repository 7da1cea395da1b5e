/** One session as the miner reads it: its events in session order. */
export interface MiningSession {
  session_id: string;
  events: readonly { event_id: string; tool_id: string; latency_ms: number }[];
}

/** How to mine. */
export interface MineOptions {
  /** Smallest support kept (a fraction of all sessions, 0–1). Default 0. */
  minSupport?: number;
  /** Shortest chain kept. Default 2. */
  minLength?: number;
  /** Longest chain counted. Default 6. */
  maxLength?: number;
  /** Keep the first N after sorting. Default: all. */
  top?: number;
  /** Treat `a a b` as `a b` (repeated identical calls are one step). Default off. */
  collapseRepeats?: boolean;
}

/** A frequent chain. */
export interface MinedChain {
  /** Tool ids joined by `>`. */
  chain: string;
  tools: string[];
  /** Sessions containing the chain ÷ all sessions. */
  support: number;
  /** Sessions containing it. */
  sessions: number;
  /** support(chain) ÷ support(chain without its last tool). */
  confidence: number;
  occurrences: number;
  /** Mean over occurrences of the chain's summed latency. */
  avg_latency_ms: number;
  /** First event of up to 20 occurrences, newest sessions first. */
  sample_event_ids: string[];
}

const SAMPLES = 20;

interface Stat {
  /** Index of the last session that counted towards support. */
  lastSession: number;
  sessions: number;
  occurrences: number;
  latency: number;
  samples: string[];
}

/**
 * Contiguous runs of tool ids within sessions, counted once per session for support and
 * once per place for latency and samples. Tool ids are encoded as short integer keys and
 * every chain extends the key of its prefix, so each session costs one map update per
 * (start, length) pair. `sessions` are given oldest first (as the store lists them);
 * samples come from the newest. Sorted by support (descending), then length (longer
 * first), then chain name.
 */
export function mineChains(
  sessions: readonly MiningSession[],
  options: MineOptions = {},
): MinedChain[] {
  const minLength = Math.max(1, options.minLength ?? 2);
  const maxLength = Math.max(minLength, options.maxLength ?? 6);
  const codes = new Map<string, string>();
  const names: string[] = [];
  const stats = new Map<string, Stat>();
  for (let index = sessions.length - 1; index >= 0; index--) {
    const events = steps(sessions[index].events, options.collapseRepeats ?? false);
    const keys = events.map((event) => {
      let code = codes.get(event.tool_id);
      if (code === undefined) {
        code = names.length.toString(36);
        codes.set(event.tool_id, code);
        names.push(event.tool_id);
      }
      return code;
    });
    for (let start = 0; start < keys.length; start++) {
      let key = "";
      let latency = 0;
      const end = Math.min(keys.length, start + maxLength);
      for (let at = start; at < end; at++) {
        key = at === start ? keys[at] : `${key},${keys[at]}`;
        latency += events[at].latency_ms;
        let stat = stats.get(key);
        if (!stat) {
          stat = { lastSession: -1, sessions: 0, occurrences: 0, latency: 0, samples: [] };
          stats.set(key, stat);
        }
        if (stat.lastSession !== index) {
          stat.lastSession = index;
          stat.sessions++;
        }
        stat.occurrences++;
        stat.latency += latency;
        if (stat.samples.length < SAMPLES) stat.samples.push(events[start].event_id);
      }
    }
  }
  const total = sessions.length || 1;
  const minSessions = (options.minSupport ?? 0) * sessions.length;
  const chains: MinedChain[] = [];
  for (const [key, stat] of stats) {
    const parts = key.split(",");
    if (parts.length < minLength || stat.sessions < minSessions - 1e-9) continue;
    const prefix = parts.length > 1 ? stats.get(parts.slice(0, -1).join(",")) : undefined;
    const tools = parts.map((code) => names[parseInt(code, 36)]);
    chains.push({
      chain: tools.join(">"),
      tools,
      support: stat.sessions / total,
      sessions: stat.sessions,
      confidence: prefix ? stat.sessions / prefix.sessions : 1,
      occurrences: stat.occurrences,
      avg_latency_ms: stat.latency / stat.occurrences,
      sample_event_ids: stat.samples,
    });
  }
  chains.sort(compareChains);
  return options.top === undefined ? chains : chains.slice(0, Math.max(0, options.top));
}

/** Support descending, then longer first, then name (code point order). */
export function compareChains(left: MinedChain, right: MinedChain): number {
  return right.sessions - left.sessions || right.tools.length - left.tools.length ||
    (left.chain < right.chain ? -1 : left.chain > right.chain ? 1 : 0);
}

/** The session's steps; with `collapse`, a call repeating the one before is dropped (its latency added). */
function steps(
  events: MiningSession["events"],
  collapse: boolean,
): { event_id: string; tool_id: string; latency_ms: number }[] {
  if (!collapse) return events as { event_id: string; tool_id: string; latency_ms: number }[];
  const result: { event_id: string; tool_id: string; latency_ms: number }[] = [];
  for (const event of events) {
    const last = result.at(-1);
    if (last && last.tool_id === event.tool_id) last.latency_ms += event.latency_ms;
    else {result.push({
        event_id: event.event_id,
        tool_id: event.tool_id,
        latency_ms: event.latency_ms,
      });}
  }
  return result;
}
