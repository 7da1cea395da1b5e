import { SynError } from "../core/mod.ts";
import type { EventStore } from "./event_store.ts";
import { INGEST_FIRST, loadSessions } from "./load_sessions.ts";
import { mineChains, type MinedChain } from "./mine_chains.ts";
import type { SynthesisEngine } from "./synthesis_engine.ts";
import { retrieveSamples } from "./synthesize_deterministic.ts";
import type { RegistryEntry, SynthesizedRegistry } from "./synthesized_registry.ts";
import { readOnlyToolsOf, type SessionOrigin } from "./session_origins.ts";

/** Which chains to synthesize, and who writes them. */
export interface SynthesisRunOptions {
  engine: SynthesisEngine;
  /** One chain by name (`a>b`, as mining prints it); else the top chains. */
  chain?: string;
  /** How many of the most frequent chains (2 tools or more) when none is named. Default 1. */
  top?: number;
  /** Smallest support a chain needs (a fraction of all sessions). Default 0. */
  minSupport?: number;
  /** The hint after "no events in <store>:" when the store is empty. */
  emptyHint?: string;
  /**
   * How each recorded session's upstream was started, with the tools it annotated
   * read-only: a step may overlap others only when every sample's server said so.
   */
  origins?: ReadonlyMap<string, SessionOrigin>;
  /** Told what mining found, before any tool is written. */
  onMined?: (mined: { sessions: number; chains: MinedChain[] }) => void | Promise<void>;
}

/** What a run wrote: the chains taken, and a DRAFT entry for each, in the same order. */
export interface SynthesisRun {
  sessions: number;
  chains: MinedChain[];
  written: RegistryEntry[];
}

/**
 * Mines the stored sessions, picks the chains, writes a composite for each through the
 * engine and stores it as DRAFT in the registry. An empty store, or a named chain that
 * mining does not find, is a `SynError` `not_found`.
 */
export async function runSynthesis(
  store: EventStore,
  registry: SynthesizedRegistry,
  options: SynthesisRunOptions,
): Promise<SynthesisRun> {
  const hint = options.emptyHint ?? INGEST_FIRST;
  const sessions = await loadSessions(store, { refuseEmpty: { hint } });
  const mined = mineChains(sessions, { minSupport: options.minSupport ?? 0, minLength: 2 });
  const chains = pickChains(mined, options.chain, options.top ?? 1);
  await options.onMined?.({ sessions: sessions.length, chains });
  const written: RegistryEntry[] = [];
  for (const chain of chains) {
    const samples = await retrieveSamples(store, chain);
    const readOnlyTools = readOnlyToolsOf(
      options.origins ?? new Map(),
      samples.map((sample) => sample.session_id),
    );
    const tool = await options.engine.write(chain, samples, { readOnlyTools });
    written.push(await registry.saveDraft(tool, options.engine.name));
  }
  return { sessions: sessions.length, chains, written };
}

/** The chains to synthesize: the one named (`a>b`), else the top N of length 2 or more. */
function pickChains(chains: MinedChain[], named: string | undefined, top: number): MinedChain[] {
  const long = chains.filter((chain) => chain.tools.length >= 2);
  if (named === undefined) return long.slice(0, top);
  const found = long.find((chain) => chain.chain === named);
  if (!found) {
    throw new SynError(
      "not_found",
      `no mined chain ${named} (see 'syn synthesize mine'; tools joined by >)`,
      { chain: named },
    );
  }
  return [found];
}
