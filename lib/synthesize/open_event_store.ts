import { SynError } from "../core/mod.ts";
import type { EventStore } from "./event_store.ts";
import { openSqliteEventStore } from "./sqlite_event_store.ts";

/**
 * The event store the configuration asks for: `SYN_EVENT_STORE` unset (or `sqlite`) is
 * `<stateDir>/events.sqlite`; a `postgres://` or `postgresql://` URL is that database (its
 * client is loaded only then). Anything else is a `config_error` that names the scheme but
 * never the value, which may hold a password.
 */
export async function openEventStore(
  stateDir: string,
  eventStore: string | undefined,
): Promise<EventStore> {
  const target = eventStore?.trim() ?? "";
  if (target === "" || target === "sqlite") return openSqliteEventStore(stateDir);
  if (/^postgres(?:ql)?:\/\//i.test(target)) {
    const { openPostgresEventStore } = await import("./postgres_event_store.ts");
    return await openPostgresEventStore(target);
  }
  const scheme = /^[a-z][a-z0-9+.-]{0,19}:/i.exec(target)?.[0] ?? "a value without a scheme";
  throw new SynError(
    "config_error",
    `SYN_EVENT_STORE must be empty (SQLite in the state directory) or a postgres:// URL, not ${scheme}`,
  );
}
