import { SynError } from "../core/mod.ts";
import type { EventStore, SessionEvents } from "./event_store.ts";

/** What to do when the store holds no session. */
export interface LoadSessionsOptions {
  /**
   * Refuse an empty store: a `SynError` `no_events`, "no events in <store>: <hint>". Without it, an
   * empty store gives `[]`.
   */
  refuseEmpty?: { hint: string };
}

/** The hint after "no events in <store>:" when there is nothing else to suggest. */
export const INGEST_FIRST = "run 'syn synthesize ingest' first";

/** Every stored session with its events, in the store's session order. */
export async function loadSessions(
  store: EventStore,
  options: LoadSessionsOptions = {},
): Promise<SessionEvents[]> {
  const sessions: SessionEvents[] = [];
  for await (const session of store.scanSessions()) sessions.push(session);
  if (!sessions.length && options.refuseEmpty) {
    throw new SynError("no_events", `no events in ${store.location}: ${options.refuseEmpty.hint}`, {
      location: store.location,
    });
  }
  return sessions;
}
