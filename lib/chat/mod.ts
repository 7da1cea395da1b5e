/**
 * @module
 * Streaming agent chat: turns and wire events (K-gent chat API 1.0.0), the session state,
 * NOTES and TOOL_CALLS protocols and checkpoints (Spectator contracts), the dialogue loop
 * whose tool calls run in the `lib/tools` sandbox, budgets, traces and BM25 memory. No
 * terminal code; the WebSocket gateway is a web-standard handler (`ChatGateway.handle`) that
 * `lib/cli` serves behind the edge of `lib/core/serve_local.ts`.
 *
 * ```ts
 * import { ChatSession, DEFAULT_CHAT_FLUX_CONFIG, templateModel } from "./mod.ts";
 * const session = await ChatSession.open({
 *   id: "demo", model: templateModel(), fallback: templateModel(), config: DEFAULT_CHAT_FLUX_CONFIG,
 * });
 * const reply = session.start({ content: "hello", mode: "reflect", correlation_id: "c1" });
 * ```
 */
export { type ChatErrorCode, type ChatEvent, type ChatEventType } from "./chat_event.ts";
export {
  type BudgetConfig,
  type BudgetTier,
  type ChatFluxConfig,
  DEFAULT_CHAT_FLUX_CONFIG,
} from "./chat_flux_config.ts";
export { type ChatState, type NotesPatch } from "./chat_state.ts";
export { type Checkpoint, condense, SESSION_ID, type StoredMessage } from "./checkpoint.ts";
export { CheckpointStore } from "./checkpoint_store.ts";
export { type DialogueEvent } from "./dialogue.ts";
export {
  type MemoryHit,
  type MemoryItem,
  type MemoryScope,
  MemoryStore,
  type MemoryStoreOptions,
  type NewMemoryItem,
  type SessionMemoryOptions,
} from "./memory_store.ts";
export { ReplyBuffer } from "./reply_buffer.ts";
export { type ChatTraceFile } from "./trace_file.ts";
export {
  ChatSession,
  type ChatSessionOptions,
  type IncomingMessage,
  type Refusal,
} from "./chat_session.ts";
export { templateModel } from "./template_model.ts";
export { type ChatKeyFile, openChatKeyFile } from "./chat_key_file.ts";
export {
  ChatGateway,
  type GatewayOptions,
  MAX_BUFFERED_BYTES,
  type RequestInfo,
  type UpgradeWebSocket,
} from "./chat_gateway.ts";
export { type ClientFrame, type ClientFrameParser } from "./client_frame.ts";
export {
  CHAT_ENGINES,
  type ChatBackend,
  type ChatEngine,
  chatModel,
  openChatSession,
} from "./chat_backend.ts";
export { type Trace, type Turn, type TurnType } from "./turn.ts";
