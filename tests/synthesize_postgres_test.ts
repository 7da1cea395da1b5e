/**
 * The event store conformance suite against a real PostgreSQL server: a throwaway
 * cluster started here (see tests/fakes/postgres_cluster.ts) and stopped by the last test.
 * Without PostgreSQL binaries every test is ignored with a visible message.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { SynError } from "../lib/core/mod.ts";
import { openEventStore, openPostgresEventStore } from "../lib/synthesize/mod.ts";
import { eventStoreConformance, makeEvent } from "./fakes/event_store_conformance.ts";
import { findPostgresBin, startPostgresCluster } from "./fakes/postgres_cluster.ts";
import { closedPort } from "./generate_fakes.ts";

const bin = findPostgresBin();
if (!bin) {
  console.warn(
    "skipping: no PostgreSQL binaries (looked in /usr/lib/postgresql/*/bin and PATH); " +
      ".ci/run installs the Debian package postgresql",
  );
}
const cluster = bin ? await startPostgresCluster(bin, { fast: true }) : undefined;
const ignore = !cluster;
// The last test stops it; this covers a run that ends before that test.
if (cluster) globalThis.addEventListener("unload", () => cluster.stopSync());

let databases = 0;

/** A fresh, empty database per test, dropped at the end. */
async function freshDatabase(): Promise<{ url: string } & AsyncDisposable> {
  const name = `syn_test_${++databases}`;
  const admin = postgres(cluster!.url(), { max: 1, onnotice: () => {} });
  await admin`CREATE DATABASE ${admin(name)}`;
  return {
    url: cluster!.url(name),
    async [Symbol.asyncDispose]() {
      await admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`;
      await admin.end();
    },
  };
}

eventStoreConformance("PostgresEventStore", async () => {
  const database = await freshDatabase();
  return {
    open: () => openPostgresEventStore(database.url),
    [Symbol.asyncDispose]: () => database[Symbol.asyncDispose](),
  };
}, { ignore });

Deno.test({
  name: "openEventStore() uses Postgres for a postgres:// SYN_EVENT_STORE",
  ignore,
  async fn() {
    await using database = await freshDatabase();
    const store = await openEventStore("/nonexistent/state", database.url);
    try {
      assert.equal(
        store.location,
        `postgres 127.0.0.1:${cluster!.port}/${database.url.split("/").pop()}`,
      );
      await store.append([await makeEvent({ event_id: "e1" })]);
      assert.deepEqual(await store.stats(), { events: 1, sessions: 1 });
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name: "openPostgresEventStore() fails with event_store_unavailable and never shows the password",
  ignore,
  async fn() {
    const url = `postgres://syn:s3cret-pass%21@127.0.0.1:${closedPort()}/postgres`;
    await assert.rejects(openPostgresEventStore(url), (error: unknown) => {
      assert.ok(error instanceof SynError);
      assert.equal(error.code, "event_store_unavailable");
      assert.match(
        error.message,
        /^Cannot use the Postgres event store at 127\.0\.0\.1:\d+\/postgres: /,
      );
      assert.doesNotMatch(JSON.stringify([error.message, error.data]), /s3cret/);
      return true;
    });
  },
});

Deno.test({
  name: "Postgres: stop the throwaway cluster",
  ignore,
  async fn() {
    await cluster!.stop();
  },
});
