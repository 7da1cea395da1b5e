import assert from "node:assert/strict";
import { join } from "node:path";
import { eventStoreConformance, makeEvent } from "../../tests/fakes/event_store_conformance.ts";
import { openSqliteDatabase, SQLITE_EVENTS_FILE } from "./sqlite_event_store.ts";
import { openSqliteEventStore } from "./mod.ts";
import { openEventStore } from "./open_event_store.ts";

function tempState(): { path: string } & AsyncDisposable {
  const path = Deno.makeTempDirSync({ prefix: "syn_events_" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

eventStoreConformance("SqliteEventStore", () => {
  const state = tempState();
  return Promise.resolve({
    open: () => Promise.resolve(openSqliteEventStore(join(state.path, "state"))),
    [Symbol.asyncDispose]: () => state[Symbol.asyncDispose](),
  });
});

Deno.test("openSqliteEventStore() keeps events.sqlite in the state folder, in WAL mode", async () => {
  await using state = tempState();
  const folder = join(state.path, "nested", "state");
  const store = openSqliteEventStore(folder);
  await store.append([await makeEvent({ event_id: "e1" })]);
  await store.close();
  assert.ok(Deno.statSync(join(folder, SQLITE_EVENTS_FILE)).isFile);
  assert.equal(Deno.statSync(folder).mode! & 0o777, 0o700);
  const db = openSqliteDatabase(join(folder, SQLITE_EVENTS_FILE));
  try {
    assert.deepEqual({ ...db.prepare("PRAGMA journal_mode").get() }, { journal_mode: "wal" });
  } finally {
    db.close();
  }
});

Deno.test("openSqliteDatabase() refuses ATTACH DATABASE", async () => {
  await using state = tempState();
  const db = openSqliteDatabase(join(state.path, "a.sqlite"));
  try {
    assert.throws(
      () => db.exec(`ATTACH DATABASE '${join(state.path, "other.sqlite")}' AS other`),
      /too many attached databases/,
    );
  } finally {
    db.close();
  }
  assert.throws(() => Deno.statSync(join(state.path, "other.sqlite")), Deno.errors.NotFound);
});

Deno.test("openEventStore() picks SQLite by default and refuses unknown stores by scheme only", async () => {
  await using state = tempState();
  for (const value of [undefined, "", "sqlite"]) {
    const store = await openEventStore(state.path, value);
    assert.equal(store.location, `sqlite ${join(state.path, SQLITE_EVENTS_FILE)}`);
    await store.close();
  }
  await assert.rejects(
    openEventStore(state.path, "mysql://root:hunter22@db/x"),
    (error: Error) => {
      assert.match(error.message, /SYN_EVENT_STORE must be empty .* not mysql:$/);
      assert.doesNotMatch(error.message, /hunter22/);
      return true;
    },
  );
});
