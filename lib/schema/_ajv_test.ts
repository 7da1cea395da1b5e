import assert from "node:assert/strict";
import { schemaFingerprint } from "./_ajv.ts";

Deno.test("schemaFingerprint() is a SHA-256 of the files in name order, changed by any edit", async () => {
  const a = { name: "a.schema.json", text: '{"type":"object"}' };
  const b = { name: "b.schema.json", text: '{"type":"string"}' };
  const fingerprint = await schemaFingerprint([a, b]);
  assert.match(fingerprint, /^[0-9a-f]{64}$/);
  assert.equal(await schemaFingerprint([b, a]), fingerprint, "the order given does not count");
  assert.notEqual(await schemaFingerprint([a, { ...b, text: '{"type":"number"}' }]), fingerprint);
  assert.notEqual(await schemaFingerprint([a]), fingerprint);
  // Names and texts are framed by their lengths: moving a boundary changes the fingerprint.
  assert.notEqual(
    await schemaFingerprint([{ name: "ab", text: "c" }]),
    await schemaFingerprint([{ name: "a", text: "bc" }]),
  );
});
