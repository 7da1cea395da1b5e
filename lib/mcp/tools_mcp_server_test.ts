import assert from "node:assert/strict";
import type { ToolResult } from "../tools/mod.ts";
import { toolCallResult } from "./tools_mcp_server.ts";

Deno.test("toolCallResult() answers the same for the same outcome, whatever the call's id", () => {
  const result = (id: string): ToolResult => ({
    id,
    tool: "fs.read_text",
    ok: true,
    output: { path: "a.txt", text: "hello", bytes: 5, truncated: false },
    error: null,
  });
  const first = toolCallResult(result("mcp-1"));
  assert.deepEqual(first, toolCallResult(result("mcp-2")));
  assert.equal(first.isError, false);
  assert.deepEqual(first.structuredContent, {
    tool: "fs.read_text",
    ok: true,
    output: { path: "a.txt", text: "hello", bytes: 5, truncated: false },
    error: null,
  });
  const refused = toolCallResult({
    id: "mcp-3",
    tool: "fs.read_text",
    ok: false,
    output: null,
    error: { code: "path_escape", message: "Path leaves the sandbox root: ../x" },
  });
  assert.equal(refused.isError, true);
  assert.match(JSON.stringify(refused.content), /path_escape/);
});
