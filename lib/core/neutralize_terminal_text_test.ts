import assert from "node:assert/strict";
import { neutralizeTerminalText } from "./neutralize_terminal_text.ts";

Deno.test("neutralizeTerminalText() shows escapes, bidi overrides and controls as text", () => {
  assert.equal(neutralizeTerminalText("\u001b[31mred\u001b[0m"), "\\x1b[31mred\\x1b[0m");
  assert.equal(neutralizeTerminalText("a\u202eb\u0007c\u009bd"), "a\\u202eb\\x07c\\x9bd");
  assert.equal(neutralizeTerminalText("line\n\ttab é ✓"), "line\n\ttab é ✓");
  assert.equal(neutralizeTerminalText("\r\u0000\u007f"), "\\x0d\\x00\\x7f");
});
