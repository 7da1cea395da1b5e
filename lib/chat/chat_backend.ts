/**
 * What a chat session is made of, assembled in one place for the REPL and the gateway:
 * the model an engine name stands for, and a session opened with its tools, checkpoint
 * store, memory and trace file. The tool registry comes from the caller (the CLI adds the
 * promoted composites of `lib/synthesize`, which `lib/chat` may not import).
 */
import type { SynConfig } from "../core/mod.ts";
import {
  createLanguageModel,
  type LanguageModel,
  type ProviderName,
  PROVIDERS,
  resolveModelConfig,
} from "../llm/mod.ts";
import { type ToolRegistry, ToolSession } from "../tools/mod.ts";
import type { ChatFluxConfig } from "./chat_flux_config.ts";
import { ChatSession } from "./chat_session.ts";
import { CheckpointStore } from "./checkpoint_store.ts";
import type { MemoryStore } from "./memory_store.ts";
import { templateModel } from "./template_model.ts";
import { openChatTraceFile } from "./trace_file.ts";

/** K-gent API §B2: a chat model call's temperature when none is configured. */
export const CHAT_TEMPERATURE = 0.7;

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

/**
 * The chat model for an engine; the template backend needs nothing. Its calls carry
 * `OPENAI_TEMPERATURE` where that applies, else {@linkcode CHAT_TEMPERATURE}. Throws
 * `SynError` (from `lib/llm`) when the chosen provider cannot be configured.
 */
export function chatModel(
  engine: ChatEngine,
  options: { config: Pick<SynConfig, "llm" | "secrets">; model?: string; endpoint?: string },
): LanguageModel {
  const chosen = engine === "auto" ? autoEngine(options.config) : engine;
  if (chosen === "template") return templateModel();
  const config = resolveModelConfig(chosen as ProviderName, {
    config: options.config,
    flags: { model: options.model, endpoint: options.endpoint, live: true },
  });
  return createLanguageModel({ ...config, temperature: config.temperature ?? CHAT_TEMPERATURE });
}

/** Everything the sessions of one process share: model, stores, sandbox, tools. */
export interface ChatBackend {
  model: LanguageModel;
  config: ChatFluxConfig;
  /** Only when the user chose a state directory: nothing is persisted otherwise. */
  stateDir?: string;
  /** The sandbox root of tool calls. */
  root: string;
  logContent: boolean;
  /** Capabilities granted from the start. */
  grants: string[];
  shellAllow: string[];
  /** Lets `shell.exec` run without bubblewrap (`--shell-without-bubblewrap`; see `ToolSessionOptions`). */
  shellWithoutBubblewrap?: boolean;
  /** `SYN_CHAT_KEY`: checkpoints and memory are encrypted with it. */
  key?: string;
  /** Values redacted from tool output and traces (API keys and the like). */
  secrets: readonly string[];
  /** Retrieval sees every session's memory, not only the session's own. */
  memoryAcrossSessions?: boolean;
  /** The one memory store of this process (with a state directory); each session takes a view. */
  memory?: MemoryStore;
  /** Builds the tools a session offers; called once per session opened. */
  toolRegistry(): Promise<ToolRegistry>;
}

/** Opens a session with its tools, checkpoint store, memory and trace file. */
export async function openChatSession(
  backend: ChatBackend,
  opening: { id: string; agent: string },
): Promise<ChatSession> {
  const { id, agent } = opening;
  const store = backend.stateDir
    ? new CheckpointStore(backend.stateDir, { key: backend.key })
    : undefined;
  const trace = backend.stateDir
    ? openChatTraceFile(backend.stateDir, id, { logContent: backend.logContent }).write
    : undefined;
  const tools = await ToolSession.open({
    registry: await backend.toolRegistry(),
    root: backend.root,
    granted: backend.grants,
    shellAllow: backend.shellAllow,
    shellWithoutBubblewrap: backend.shellWithoutBubblewrap,
    stateDir: backend.stateDir,
    sessionId: id,
    secrets: backend.secrets,
    trace,
  });
  const session = await ChatSession.open({
    id,
    agent,
    model: backend.model,
    fallback: templateModel(),
    tools,
    store,
    memory: backend.memory,
    memoryAcrossSessions: backend.memoryAcrossSessions,
    trace,
    config: backend.config,
    logContent: backend.logContent,
  });
  for (const grant of backend.grants) {
    if (!session.checkpoint.state.capabilities_granted.includes(grant)) {
      await session.setCapability(grant, true);
    }
  }
  return session;
}
