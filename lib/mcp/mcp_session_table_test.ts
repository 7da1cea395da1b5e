import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/fake_clock.ts";
import { McpSessionTable } from "./mcp_session_table.ts";

class Session {
  closed = 0;
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
}

Deno.test("McpSessionTable counts sessions being opened against the cap", () => {
  const table = new McpSessionTable<Session>({
    maxSessions: 2,
    idleMs: 1_000,
    clock: new FakeClock(),
  });
  assert.equal(table.reserve(), true);
  assert.equal(table.reserve(), true);
  assert.equal(table.reserve(), false, "two being opened fill the table");
  table.add("a", new Session());
  table.release();
  assert.equal(table.reserve(), false, "one live, one being opened");
  table.release();
  assert.equal(table.size, 1);
  assert.equal(table.reserve(), true);
  table.release();
  assert.equal(table.delete("a"), true);
  assert.equal(table.delete("a"), false);
});

Deno.test("McpSessionTable.expireIdle() closes idle sessions, never one still answering", async () => {
  const clock = new FakeClock(0);
  const table = new McpSessionTable<Session>({ maxSessions: 8, idleMs: 1_000, clock });
  const idle = new Session();
  const busy = new Session();
  table.add("idle", idle);
  table.add("busy", busy);
  assert.equal(table.begin("busy"), busy);
  clock.current = 999;
  assert.deepEqual(await table.expireIdle(), []);
  clock.current = 5_000;
  assert.deepEqual(await table.expireIdle(), ["idle"]);
  assert.equal(idle.closed, 1);
  assert.equal(table.begin("idle"), undefined);
  table.end("busy"); // the answer was delivered at 5 000
  clock.current = 5_999;
  assert.deepEqual(await table.expireIdle(), []);
  clock.current = 6_000;
  assert.deepEqual(await table.expireIdle(), ["busy"]);
  assert.equal(busy.closed, 1);
  assert.equal(table.size, 0);
});

Deno.test("McpSessionTable.expireIdle() closes a session idle past the limit even with a stream open", async () => {
  const clock = new FakeClock(0);
  const table = new McpSessionTable<Session>({ maxSessions: 8, idleMs: 1_000, clock });
  const streaming = new Session();
  table.add("streaming", streaming);
  // A standalone GET stream: the session is used, but the stream does not keep it alive.
  assert.equal(table.touch("streaming"), streaming);
  assert.equal(table.touch("nobody"), undefined);
  clock.current = 999;
  assert.deepEqual(await table.expireIdle(), []);
  clock.current = 1_000;
  assert.deepEqual(await table.expireIdle(), ["streaming"]);
  assert.equal(streaming.closed, 1);
});

Deno.test("McpSessionTable.closeAll() closes every session once", async () => {
  const table = new McpSessionTable<Session>({
    maxSessions: 8,
    idleMs: 1_000,
    clock: new FakeClock(),
  });
  const sessions = [new Session(), new Session()];
  sessions.forEach((session, index) => table.add(String(index), session));
  await table.closeAll();
  await table.closeAll();
  assert.deepEqual(sessions.map((session) => session.closed), [1, 1]);
  assert.equal(table.size, 0);
});
