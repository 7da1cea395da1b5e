import assert from "node:assert/strict";
import { countCalls } from "./open_validator.ts";
import type { ValidatorClient } from "./validator_client.ts";

/** A client whose answers the test releases, and which records when it is closed. */
function fakeClient() {
  const events: string[] = [];
  const pending: (() => void)[] = [];
  let closing: Promise<void> | undefined;
  const answer = <T>(name: string, value: T, fail = false) =>
    new Promise<T>((resolve, reject) => {
      events.push(`call ${name}`);
      pending.push(() => fail ? reject(new Error("lost")) : resolve(value));
    });
  const client: ValidatorClient = {
    transport: "memory",
    call: (method) => answer(method, { ok: true }, method === "fails"),
    validateAsset: () => answer("validate_asset", { ok: true, errors: [] }),
    close() {
      closing ??= Promise.resolve().then(() => void events.push("closed"));
      return closing;
    },
  };
  return { client, events, release: () => pending.shift()!() };
}

Deno.test("countCalls() counts calls and leaves closing to the caller without closeAfter", async () => {
  const { client, events, release } = fakeClient();
  const counted = countCalls(client);
  const verdict = counted.validateAsset({}, "synesthetic-asset");
  release();
  assert.deepEqual(await verdict, { ok: true, errors: [] });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(counted.calls, 1);
  assert.deepEqual(events, ["call validate_asset"]);
  await counted.close();
  assert.deepEqual(events, ["call validate_asset", "closed"]);
});

Deno.test("countCalls() with closeAfter starts closing once that many calls have settled", async () => {
  const { client, events, release } = fakeClient();
  const counted = countCalls(client, 2);
  const first = counted.call("list_schemas");
  release();
  await first;
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(events, ["call list_schemas"], "one of two answers: still open");
  const second = counted.validateAsset({}, "synesthetic-asset");
  release();
  await second;
  await new Promise((resolve) => setTimeout(resolve, 0));
  // Closed before the caller asked: a stdio child exits while the caller goes on.
  assert.deepEqual(events, ["call list_schemas", "call validate_asset", "closed"]);
  await counted.close();
  assert.equal(events.filter((event) => event === "closed").length, 1);
  assert.equal(counted.calls, 2);
});

Deno.test("countCalls() with closeAfter counts a call that failed as settled", async () => {
  const { client, events, release } = fakeClient();
  const counted = countCalls(client, 1);
  const failing = counted.call("fails");
  release();
  await assert.rejects(failing, /lost/);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(events, ["call fails", "closed"]);
});
