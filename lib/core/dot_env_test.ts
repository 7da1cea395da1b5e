import assert from "node:assert/strict";
import { parseDotEnv } from "./dot_env.ts";

Deno.test("parseDotEnv() reads names, quotes, export and comments without expansion", () => {
  const { values, skipped } = parseDotEnv([
    "# a comment",
    "OPENAI_API_KEY=sk-abc # trailing",
    "export GEMINI_MODEL = gemini-2.5-flash",
    "SINGLE='a $HOME b'",
    'DOUBLE="line\\nnext \\"q\\""',
    "EMPTY=",
    "not a line",
    "BAD='unterminated",
    "",
  ].join("\n"));
  assert.deepEqual(Object.fromEntries(values), {
    OPENAI_API_KEY: "sk-abc",
    GEMINI_MODEL: "gemini-2.5-flash",
    SINGLE: "a $HOME b",
    DOUBLE: 'line\nnext "q"',
    EMPTY: "",
  });
  assert.deepEqual(skipped, [7, 8]);
});
