import assert from "node:assert/strict";
import { canonicalJson, responseHash, sha256Hex } from "./canonical_json.ts";

Deno.test("canonicalJson() sorts keys at every depth and drops undefined members", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson({ a: undefined, b: "x" }), '{"b":"x"}');
  assert.equal(canonicalJson("é\n"), '"é\\n"');
});

Deno.test("sha256Hex() matches the known digest of 'abc'", () => {
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("responseHash() is 16 hex chars and ignores key order and whitespace", () => {
  const first = responseHash('{"a": 1, "b": [1, 2]}');
  assert.match(first, /^[0-9a-f]{16}$/);
  assert.equal(first, responseHash('{"b":[1,2],"a":1}'));
  assert.equal(first, responseHash({ b: [1, 2], a: 1 }));
  assert.notEqual(first, responseHash('{"a":2,"b":[1,2]}'));
  assert.match(responseHash("not json"), /^[0-9a-f]{16}$/);
});

Deno.test("canonicalJson() writes 100,000-deep documents and odd values like JSON.stringify", () => {
  const depth = 100_000;
  const deep = JSON.parse("[".repeat(depth) + '{"b":1,"a":2}' + "]".repeat(depth));
  assert.equal(canonicalJson(deep), "[".repeat(depth) + '{"a":2,"b":1}' + "]".repeat(depth));
  assert.equal(canonicalJson([undefined, () => 1, -0, "\ud800"]), '[null,null,0,"\\ud800"]');
  assert.equal(canonicalJson({}), "{}");
  assert.equal(canonicalJson([]), "[]");
  assert.equal(canonicalJson(undefined), "null");
});
