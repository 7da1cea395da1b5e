import assert from "node:assert/strict";
import { parseJsonc } from "./_jsonc.ts";

Deno.test("parseJsonc() reads comments and trailing commas, never inside strings", () => {
  const text = `{
  // a comment
  "url": "http://x//y", /* block
  comment */ "list": [1, 2,],
  "quote": "a \\" // not a comment",
}`;
  assert.deepEqual(parseJsonc(text), {
    url: "http://x//y",
    list: [1, 2],
    quote: 'a " // not a comment',
  });
});

Deno.test("parseJsonc() takes a comment before a closing bracket or brace", () => {
  assert.deepEqual(parseJsonc("[1, 2, // two\n]"), [1, 2]);
  assert.deepEqual(parseJsonc('{"a": 1, /* x */ }'), { a: 1 });
  assert.deepEqual(parseJsonc('{"a": [1 /* one */, 2 // two\n, ],\n}'), { a: [1, 2] });
});

Deno.test("parseJsonc() names the source, line and column of the first error", () => {
  assert.throws(
    () => parseJsonc('{\n  "a": 1 /* x */ "b": 2}', "c.jsonc"),
    (error: Error) => {
      assert.match(error.message, /^c\.jsonc:2:18: invalid JSONC: CommaExpected$/);
      return true;
    },
  );
  assert.throws(() => parseJsonc("", "e.jsonc"), /e\.jsonc:1:1: invalid JSONC/);
});
