import { neutralizeTerminalText, resolvePath, SynError, UsageError } from "../core/mod.ts";
import type { ChatBackend } from "../chat/mod.ts";
import { toolRegistryWithComposites } from "../synthesize/mod.ts";
import type { ToolRegistry } from "../tools/mod.ts";
import type { CliIo } from "./io.ts";

/** What the chat commands share: the sessions' backend, and where its sandbox root came from. */
export interface ChatEnvironment extends ChatBackend {
  /** The root was made for this run (said so to the user). */
  rootIsTemporary: boolean;
  /** Where promoted composite tools are read from: the state folder the user named, or none. */
  compositesDir?: string;
}

/**
 * The tools a chat session offers: the baseline tools and the promoted composites of the
 * state folder (only one the user named) whose steps are among them. Reading the registry
 * writes nothing; each composite left out is reported to `warn`, made printable.
 */
export function chatToolRegistry(
  env: Pick<ChatEnvironment, "compositesDir">,
  warn: (line: string) => unknown = () => {},
): Promise<ToolRegistry> {
  return toolRegistryWithComposites(env.compositesDir, {
    onLeftOut: (toolId, problems) => {
      const why = problems.join("; ").replaceAll("\n", " ");
      return warn(neutralizeTerminalText(`chat: composite ${toolId} left out: ${why}\n`));
    },
  });
}

/** The sandbox root: the user's folder, or a fresh temporary one. */
export async function chatRoot(
  flag: string | undefined,
  io: CliIo,
): Promise<{ root: string; temporary: boolean }> {
  if (flag) {
    const root = resolvePath(io.cwd, flag);
    try {
      if (!(await Deno.stat(root)).isDirectory) {
        throw new UsageError(`--root is not a folder: ${flag}`);
      }
    } catch (error) {
      if (error instanceof SynError) throw error;
      throw new UsageError(`--root does not exist: ${flag}`);
    }
    return { root, temporary: false };
  }
  return { root: await Deno.makeTempDir({ prefix: "syn-chat-root-" }), temporary: true };
}

/** Removes a temporary sandbox root if the session left nothing in it; else says where it is. */
export async function leaveRoot(
  env: ChatEnvironment,
  say: (line: string) => unknown,
): Promise<void> {
  if (!env.rootIsTemporary) return;
  let empty = true;
  try {
    for await (const _ of Deno.readDir(env.root)) {
      empty = false;
      break;
    }
    if (empty) await Deno.remove(env.root);
    else await say(`the tools' files stay in ${env.root}`);
  } catch {
    // already gone
  }
}
