import assert from "node:assert/strict";
import { CONFIG_VARIABLES, loadConfig } from "../lib/core/mod.ts";
import { SOCKET_TESTS, socketTestGate, unixSocketProblem } from "./fakes/socket_tests.ts";

Deno.test("LABS_SOCKET_TESTS is in the table and read as the Labs spec says: 1 on, default 0", () => {
  const entry = CONFIG_VARIABLES.find((variable) => variable.name === "LABS_SOCKET_TESTS");
  assert.ok(entry, "LABS_SOCKET_TESTS is a configuration variable");
  assert.equal(entry.secret, false);
  const socketTests = (value?: string) =>
    loadConfig((name) => name === "LABS_SOCKET_TESTS" ? value : undefined).labs.socketTests;
  assert.equal(socketTests("1"), true);
  assert.equal(socketTests("0"), false);
  assert.equal(socketTests(""), false);
  assert.equal(socketTests(undefined), false);
});

Deno.test("socketTestGate() skips only where sockets are missing and the tests are not required", () => {
  assert.deepEqual(socketTestGate({ required: false }), { ignore: false });
  assert.deepEqual(socketTestGate({ required: true }), { ignore: false });
  // Required: run anyway, so the missing socket shows as a failure rather than a skip.
  assert.deepEqual(socketTestGate({ required: true, problem: "no AF_UNIX" }), { ignore: false });
  assert.deepEqual(socketTestGate({ required: false, problem: "no AF_UNIX" }), {
    ignore: true,
    reason: "Unix sockets are not available here: no AF_UNIX",
  });
});

Deno.test("the socket probe listens on a real Unix socket where the platform has them", () => {
  if (Deno.build.os === "windows") return;
  assert.equal(unixSocketProblem(), undefined);
  assert.deepEqual(SOCKET_TESTS, { ignore: false });
});
