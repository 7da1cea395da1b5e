import assert from "node:assert/strict";
import { jsonErrorOffset } from "./_json_error_offset.ts";

Deno.test("jsonErrorOffset() agrees with JSON.parse on valid and invalid texts", () => {
  const valid = ['{"a":[1,2.5e3,-0,true,false,null,"\\u00e9\\n"]}', " [ ] ", '""', "0", '{"":{}}'];
  for (const text of valid) assert.equal(jsonErrorOffset(text), undefined, text);
  const invalid: [string, number][] = [
    ["", 0],
    ["{", 1],
    ['{"a" 1}', 5],
    ['{"a":1,}', 7],
    ["[1,]", 3],
    ["[01]", 2],
    ['"\\x"', 1],
    ['{"a":tru}', 5],
    ["1 2", 2],
    ["{'a':1}", 1],
    // A number longer than any fixed window is still one token.
    ["[" + "1".repeat(500) + ",x]", 502],
  ];
  for (const [text, offset] of invalid) {
    assert.throws(() => JSON.parse(text));
    assert.equal(jsonErrorOffset(text)?.offset, offset, text);
  }
});

Deno.test("jsonErrorOffset() handles 100,000-deep nesting without recursion", () => {
  const depth = 100_000;
  assert.equal(jsonErrorOffset("[".repeat(depth) + "]".repeat(depth)), undefined);
  assert.equal(jsonErrorOffset("[".repeat(depth) + "]".repeat(depth - 1))?.offset, 2 * depth - 1);
});
