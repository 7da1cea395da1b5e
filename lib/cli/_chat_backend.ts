import { resolve } from "node:path";
import { neutralizeTerminalText, type SynConfig, SynError, UsageError } from "../core/mod.ts";
import {
  type ChatFluxConfig,
  ChatSession,
  CheckpointStore,
  type MemoryStore,
  openChatTraceFile,
  templateModel,
} from "../chat/mod.ts";
import {
  createLanguageModel,
  type LanguageModel,
  type ProviderName,
  PROVIDERS,
  resolveModelConfig,
} from "../llm/mod.ts";
import { registerPromotedComposites } from "../synthesize/mod.ts";
import { baselineRegistry, type ToolRegistry, ToolSession } from "../tools/mod.ts";
import type { CliIo } from "./io.ts";

/** `--engine` values; `auto` picks a provider whose key is set, else the template backend. */
export const CHAT_ENGINES = ["auto", "template", ...PROVIDERS] as const;
export type ChatEngine = typeof CHAT_ENGINES[number];

/** The provider `auto` chooses: the first key that is set, then a local OpenAI-compatible server. */
export function autoEngine({ llm }: Pick<SynConfig, "llm">): ChatEngine {
  if (llm.openai.apiKey) return "openai";
  if (llm.anthropic.apiKey) return "anthropic";
  if (llm.gemini.apiKey) return "gemini";
  if (llm.openai.endpoint) return "openai-compatible";
  return "template";
}

/** The chat model for an engine; the template backend needs nothing. */
export function chatModel(
  engine: ChatEngine,
  io: CliIo,
  flags: { model?: string; endpoint?: string },
): LanguageModel {
  const chosen = engine === "auto" ? autoEngine(io.config) : engine;
  if (chosen === "template") return templateModel();
  const config = resolveModelConfig(chosen as ProviderName, {
    config: io.config,
    flags: { ...flags, live: true },
  });
  return createLanguageModel(config);
}

/** Everything a chat command shares: where state lives, the sandbox root, the model. */
export interface ChatEnvironment {
  model: LanguageModel;
  config: ChatFluxConfig;
  /** Only when the user chose a state directory: nothing is persisted otherwise. */
  stateDir?: string;
  root: string;
  /** The root was made for this run (said so to the user). */
  rootIsTemporary: boolean;
  logContent: boolean;
  grants: string[];
  shellAllow: string[];
  key?: string;
  /** `SYN_CHAT_MEMORY_SCOPE=all_sessions`: retrieval sees every session's memory. */
  memoryAcrossSessions?: boolean;
  /** The one memory store of this process (with a state directory); each session takes a view. */
  memory?: MemoryStore;
  /** Where promoted composite tools are read from: the state folder the user named, or none. */
  compositesDir?: string;
}

/**
 * The tools a chat session offers: the baseline tools and the promoted composites of the
 * state folder (only one the user named) whose steps are among them. Reading the registry
 * writes nothing; each composite left out is reported to `warn`, made printable.
 */
export async function chatToolRegistry(
  env: Pick<ChatEnvironment, "compositesDir">,
  warn: (line: string) => unknown = () => {},
): Promise<ToolRegistry> {
  const registry = await baselineRegistry();
  if (!env.compositesDir) return registry;
  const report = await registerPromotedComposites(registry, env.compositesDir);
  for (const { tool_id, problems } of report.skipped) {
    const why = problems.slice(0, 3).join("; ").replaceAll("\n", " ");
    await warn(neutralizeTerminalText(`chat: composite ${tool_id} left out: ${why}\n`));
  }
  return registry;
}

/** Opens a session with its tools, checkpoint store, memory and trace file. */
export async function openChatSession(
  env: ChatEnvironment,
  id: string,
  agent: string,
  io: CliIo,
): Promise<ChatSession> {
  const store = env.stateDir ? new CheckpointStore(env.stateDir, { key: env.key }) : undefined;
  const trace = env.stateDir
    ? openChatTraceFile(env.stateDir, id, { logContent: env.logContent }).write
    : undefined;
  const secrets = io.config.secrets;
  const tools = await ToolSession.open({
    registry: await chatToolRegistry(env, io.stderr),
    root: env.root,
    granted: env.grants,
    shellAllow: env.shellAllow,
    stateDir: env.stateDir,
    sessionId: id,
    secrets,
    trace,
  });
  const session = await ChatSession.open({
    id,
    agent,
    model: env.model,
    fallback: templateModel(),
    tools,
    store,
    memory: env.memory,
    memoryAcrossSessions: env.memoryAcrossSessions,
    trace,
    config: env.config,
    logContent: env.logContent,
  });
  for (const grant of env.grants) {
    if (!session.checkpoint.state.capabilities_granted.includes(grant)) {
      await session.setCapability(grant, true);
    }
  }
  return session;
}

/** The sandbox root: the user's folder, or a fresh temporary one. */
export async function chatRoot(
  flag: string | undefined,
  io: CliIo,
): Promise<{ root: string; temporary: boolean }> {
  if (flag) {
    const root = resolve(io.cwd, flag);
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
