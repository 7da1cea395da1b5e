import assert from "node:assert/strict";
import { parseJson, stripJsonc } from "./mod.ts";

Deno.test("stripJsonc() blanks comments and trailing commas, never inside strings", () => {
  const text = `{
  // a comment
  "url": "http://x//y", /* block
  comment */ "list": [1, 2,],
  "quote": "a \\" // not a comment",
}`;
  assert.deepEqual(JSON.parse(stripJsonc(text)), {
    url: "http://x//y",
    list: [1, 2],
    quote: 'a " // not a comment',
  });
  assert.equal(stripJsonc(text).split("\n").length, text.split("\n").length, "lines kept");
  assert.throws(() => parseJson(stripJsonc('{"a": 1 /* x */ "b": 2}'), "c.jsonc"), /c\.jsonc:1:/);
});
