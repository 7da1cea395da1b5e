import assert from "node:assert/strict";
import {
  applyCapabilityAction,
  grantCapability,
  isCapability,
  NO_CAPABILITIES,
  requestCapability,
  revokeCapability,
} from "./capabilities.ts";

Deno.test("requestCapability() makes a capability pending unless already granted", () => {
  const pending = requestCapability(NO_CAPABILITIES, "net:example.com");
  assert.deepEqual(pending.capabilities_pending, ["net:example.com"]);
  assert.deepEqual(requestCapability(pending, "net:example.com"), pending);
  const granted = grantCapability(NO_CAPABILITIES, "net");
  assert.deepEqual(requestCapability(granted, "net"), granted);
});

Deno.test("grantCapability() moves pending to granted; pending never holds a grant", () => {
  let state = requestCapability(NO_CAPABILITIES, "net:Example.COM.");
  state = grantCapability(state, "net:example.com");
  assert.deepEqual(state.capabilities_granted, ["net:example.com"]);
  assert.deepEqual(state.capabilities_pending, []);
  state = grantCapability(state, "net:example.com");
  assert.deepEqual(state.capabilities_granted, ["net:example.com"]);
});

Deno.test("revokeCapability() removes the grant and any pending request", () => {
  let state = grantCapability(NO_CAPABILITIES, "net");
  state = requestCapability(state, "net:a.test");
  state = revokeCapability(state, "net");
  assert.deepEqual(state.capabilities_granted, []);
  assert.deepEqual(revokeCapability(state, "net:a.test").capabilities_pending, []);
});

Deno.test("applyCapabilityAction() follows the NOTES actions and ignores the rest", () => {
  let result = applyCapabilityAction(NO_CAPABILITIES, "request_permission:net:huggingface.co");
  assert.equal(result.applied, true);
  assert.deepEqual(result.state.capabilities_pending, ["net:huggingface.co"]);
  result = applyCapabilityAction(result.state, "grant_permission:net:huggingface.co");
  assert.deepEqual(result.state.capabilities_granted, ["net:huggingface.co"]);
  assert.deepEqual(result.state.capabilities_pending, []);
  for (
    const action of [
      "condense_now",
      "launch_missiles:net",
      42,
      "grant_permission:",
      "grant_permission:net x",
      "__proto__:net",
    ]
  ) {
    const ignored = applyCapabilityAction(result.state, action);
    assert.equal(ignored.applied, false, String(action));
    assert.equal(ignored.state, result.state);
    assert.ok(ignored.reason);
  }
});

Deno.test("isCapability() accepts net forms and refuses control characters and spaces", () => {
  assert.equal(isCapability("net"), true);
  assert.equal(isCapability("net:example.com"), true);
  assert.equal(isCapability("net:"), false);
  assert.equal(isCapability("net:a b"), false);
  assert.equal(isCapability("net:a\u001b[31m"), false);
  assert.equal(isCapability("x".repeat(300)), false);
});
