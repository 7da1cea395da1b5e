import { FS_LIST_DIR, FS_READ_TEXT, FS_WRITE_TEXT } from "./fs_tools.ts";
import { HTTP_GET } from "./http_get.ts";
import { SHELL_EXEC } from "./shell_exec.ts";
import type { ToolDescriptor } from "./tool_descriptor.ts";
import { ToolRegistry } from "./tool_registry.ts";

/** The five baseline tools of Spectator §4, in its order. */
export const BASELINE_TOOLS: readonly ToolDescriptor[] = Object.freeze([
  FS_READ_TEXT,
  FS_LIST_DIR,
  FS_WRITE_TEXT,
  SHELL_EXEC,
  HTTP_GET,
]);

/** A registry holding the baseline tools: `registry` (a new one by default) with them added. */
export async function baselineRegistry(registry = new ToolRegistry()): Promise<ToolRegistry> {
  for (const tool of BASELINE_TOOLS) await registry.register(tool);
  return registry;
}
