import assert from "node:assert/strict";
import { SynError } from "./errors.ts";
import { lineColumnAt, parseJson } from "./parse_json.ts";

Deno.test("parseJson() names the source, line and column of a syntax error", () => {
  const text = '{\n  "a": 1,\n  "b": tru\n}';
  try {
    parseJson(text, "asset.json");
    assert.fail("expected a parse error");
  } catch (error) {
    assert.ok(error instanceof SynError);
    assert.equal(error.code, "parse_error");
    assert.equal(error.data.source, "asset.json");
    assert.equal(error.data.line, 3);
    assert.ok((error.data.column as number) >= 8);
    assert.match(error.message, /^asset\.json:3:\d+: invalid JSON/);
  }
});

Deno.test("parseJson() reports the end of an empty or truncated text", () => {
  assert.throws(() => parseJson("", "x"), /x:1:1: invalid JSON/);
  assert.throws(() => parseJson('{"a":\n', "y"), /y:2:1: invalid JSON/);
});

Deno.test("lineColumnAt() counts lines from 1", () => {
  assert.deepEqual(lineColumnAt("ab\ncd", 4), { line: 2, column: 2 });
  assert.deepEqual(lineColumnAt("ab", 0), { line: 1, column: 1 });
});

Deno.test("parseJson() names invisible or look-alike characters by code point", () => {
  assert.throws(() => parseJson("\uFEFF{}", "bom.json"), /bom\.json:1:1: .*character U\+FEFF$/);
  assert.throws(() => parseJson('{"a": \u201Cb\u201D}', "q.json"), /q\.json:1:7: .*U\+201C$/);
  assert.throws(() => parseJson("[\u00A01]", "s.json"), /s\.json:1:2: .*U\+00A0$/);
  assert.throws(() => parseJson("[x]", "x.json"), /x\.json:1:2: .*character "x"$/);
  assert.throws(() => parseJson("[\u{1F600}]", "e.json"), /e\.json:1:2: .*U\+1F600$/);
});
