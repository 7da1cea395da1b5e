import assert from "node:assert/strict";
import { escapePointerToken, formatPointer, parsePointer, resolvePointer } from "./json_pointer.ts";

Deno.test("formatPointer() escapes ~ before / (RFC 6901 §3)", () => {
  assert.equal(formatPointer([]), "");
  assert.equal(formatPointer(["a/b", "m~n", 0, ""]), "/a~1b/m~0n/0/");
  assert.equal(escapePointerToken("~1"), "~01");
});

Deno.test("parsePointer() round-trips formatPointer() and rejects bad pointers", () => {
  for (const tokens of [[], ["a"], ["", ""], ["~01", "/", "~"], ["ü", "0"]]) {
    assert.deepEqual(parsePointer(formatPointer(tokens)), tokens);
  }
  assert.throws(() => parsePointer("a"), SyntaxError);
  assert.throws(() => parsePointer("/a~2"), SyntaxError);
  assert.throws(() => parsePointer("/a~"), SyntaxError);
});

Deno.test("resolvePointer() follows RFC 6901 §5 examples", () => {
  const document = { foo: ["bar", "baz"], "": 0, "a/b": 1, "m~n": 8, " ": 7 };
  assert.deepEqual(resolvePointer(document, ""), { found: true, value: document });
  assert.deepEqual(resolvePointer(document, "/foo/0"), { found: true, value: "bar" });
  assert.deepEqual(resolvePointer(document, "/"), { found: true, value: 0 });
  assert.deepEqual(resolvePointer(document, "/a~1b"), { found: true, value: 1 });
  assert.deepEqual(resolvePointer(document, "/m~0n"), { found: true, value: 8 });
  assert.deepEqual(resolvePointer(document, "/ "), { found: true, value: 7 });
  assert.deepEqual(resolvePointer(document, "/foo/2"), { found: false });
  assert.deepEqual(resolvePointer(document, "/foo/01"), { found: false });
  assert.deepEqual(resolvePointer(document, "/toString"), { found: false });
});
