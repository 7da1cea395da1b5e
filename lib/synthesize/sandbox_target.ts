/**
 * Fresh worlds for syn's own tools: each is a tool session in a fresh copy of the sandbox
 * root, so validating a composite never writes into the user's folder — the original calls
 * run in one copy, the composite in another, and both copies are removed afterwards.
 */
import { joinPath, SynError } from "../core/mod.ts";
import { baselineRegistry, compositeProblems, outputSummary, ToolSession } from "../tools/mod.ts";
import type { FreshWorlds } from "./fresh_execution.ts";
import type { SynthesizedTool } from "./synthesized_tool.ts";

/** The sandbox a composite runs in: the root folder that is copied, and the capabilities granted. */
export interface SandboxTargetOptions {
  root: string;
  granted?: string[];
  /** Lets `shell.exec` steps run where bubblewrap cannot (`--shell-without-bubblewrap`). */
  shellWithoutBubblewrap?: boolean;
}

/** Most files and bytes a root may hold to be copied for validation. */
export const MAX_COPIED_FILES = 10_000;
export const MAX_COPIED_BYTES = 256 * 1024 * 1024;

/**
 * Copies the regular files and folders of `from` into `to` (links are not followed and not
 * copied). Throws an `invalid_option` error on the `root` setting when the root is larger
 * than the caps.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const budget = { files: MAX_COPIED_FILES, bytes: MAX_COPIED_BYTES };
  const pending: [string, string][] = [[from, to]];
  while (pending.length) {
    const [source, target] = pending.pop()!;
    for await (const entry of Deno.readDir(source)) {
      const sourcePath = joinPath(source, entry.name);
      const targetPath = joinPath(target, entry.name);
      if (entry.isDirectory) {
        await Deno.mkdir(targetPath, { mode: 0o700 });
        pending.push([sourcePath, targetPath]);
      } else if (entry.isFile) {
        const size = (await Deno.lstat(sourcePath)).size;
        budget.files--;
        budget.bytes -= size;
        if (budget.files < 0 || budget.bytes < 0) {
          throw new SynError(
            "invalid_option",
            `${from} holds more than ${MAX_COPIED_FILES} files or ${MAX_COPIED_BYTES} bytes: ` +
              "too large to copy for validation; give a smaller root",
            { option: "root", value: from },
          );
        }
        await Deno.copyFile(sourcePath, targetPath);
      }
    }
  }
}

/**
 * Fresh worlds for a — not yet promoted — composite of syn's own tools: each world is a new
 * tool session rooted in a new copy of `root`. A step that names a tool syn does not have,
 * or a condition that does not parse, is a `SynError` `invalid_tool`.
 */
export async function openSandboxWorlds(
  tool: SynthesizedTool,
  options: SandboxTargetOptions,
): Promise<FreshWorlds> {
  const tools = await baselineRegistry();
  const problems = compositeProblems(tool, (name) => tools.get(name) !== undefined);
  if (problems.length) {
    throw new SynError("invalid_tool", `cannot execute ${tool.tool_id}: ${problems.join("; ")}`, {
      tool_id: tool.tool_id,
      problems,
    });
  }
  const root = await Deno.realPath(options.root);
  return {
    where: `in fresh copies of ${root}`,
    summarize: outputSummary,
    readOnly: (name) => tools.get(name)?.effects?.readOnly === true,
    async open() {
      const copy = await Deno.makeTempDir({ prefix: "syn-validate-" });
      const remove = () => Deno.remove(copy, { recursive: true }).catch(() => {});
      try {
        await copyTree(root, copy);
        const session = await ToolSession.open({
          root: copy,
          registry: tools,
          granted: options.granted ?? [],
          shellWithoutBubblewrap: options.shellWithoutBubblewrap,
        });
        return {
          execute: (name, args) => session.call({ id: crypto.randomUUID(), tool: name, args }),
          async [Symbol.asyncDispose]() {
            await session.close();
            await remove();
          },
        };
      } catch (error) {
        await remove();
        throw error;
      }
    },
  };
}
