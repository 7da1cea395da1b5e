import type { EventStore } from "./event_store.ts";
import { INGEST_FIRST, loadSessions } from "./load_sessions.ts";
import { mineChains, type MinedChain, type MineOptions } from "./mine_chains.ts";

/** The frequent chains of a store's sessions, and what a reader needs to weigh them. */
export interface StoredChains {
  /** How many sessions were mined. */
  sessions: number;
  /**
   * Whether any event recorded a latency. The public corpora record none (every event has
   * 0 ms): a mean latency of 0 would mislead.
   */
  latency_recorded: boolean;
  chains: MinedChain[];
}

/** Mines every stored session; an empty store is refused (`SynError` `no_events`). */
export async function mineStoredChains(
  store: EventStore,
  options: MineOptions = {},
): Promise<StoredChains> {
  const sessions = await loadSessions(store, { refuseEmpty: { hint: INGEST_FIRST } });
  return {
    sessions: sessions.length,
    latency_recorded: sessions.some((session) =>
      session.events.some((event) => event.latency_ms > 0)
    ),
    chains: mineChains(sessions, options),
  };
}
