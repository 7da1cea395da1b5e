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
export {
  CHAT_ERROR_CODES,
  type ChatErrorCode,
  type ChatEvent,
  chatEventToJson,
  type ChatEventType,
} from "./chat_event.ts";
export {
  affordableTier,
  type BudgetConfig,
  type BudgetTier,
  type ChatFluxConfig,
  DEFAULT_BUDGET_CONFIG,
  DEFAULT_CHAT_FLUX_CONFIG,
  entropyForTier,
  maxTokensForTier,
} from "./chat_flux_config.ts";
export {
  applyNotesPatch,
  type ChatState,
  emptyChatState,
  type NotesPatch,
  parseNotesPatch,
  runNotesActions,
} from "./chat_state.ts";
export {
  type Checkpoint,
  condense,
  newCheckpoint,
  SESSION_ID,
  type StoredMessage,
} from "./checkpoint.ts";
export { CheckpointStore } from "./checkpoint_store.ts";
export { dialogue, type DialogueEvent, entropyOfTokens } from "./dialogue.ts";
export { EntropyBucket } from "./entropy_bucket.ts";
export { MARKERS, MarkerStream, splitMarkers } from "./marker_stream.ts";
export {
  checkCitations,
  type MemoryHit,
  type MemoryItem,
  type MemoryScope,
  MemoryStore,
  type MemoryStoreOptions,
  type NewMemoryItem,
  openMemoryStore,
  RETRIEVED_MEMORY_LABEL,
  retrievedMemoryBlock,
  SessionMemory,
  type SessionMemoryOptions,
} from "./memory_store.ts";
export { ReplyBuffer } from "./reply_buffer.ts";
export { type ChatTraceFile, openChatTraceFile, traceRecord } from "./trace_file.ts";
export {
  ChatSession,
  type ChatSessionOptions,
  DIALOGUE_MODES,
  type IncomingMessage,
  type Refusal,
} from "./chat_session.ts";
export { TEMPLATE_LABEL, templateModel } from "./template_model.ts";
export {
  CHAT_KEY_FILE,
  type ChatKeyFile,
  MIN_CHAT_KEY_CHARS,
  openChatKeyFile,
} from "./chat_key_file.ts";
export {
  AGENT_NAME,
  ChatGateway,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SOCKETS,
  DEFAULT_MAX_SOCKETS_PER_PEER,
  DEFAULT_PEER_ENTROPY_BUDGET,
  type GatewayOptions,
  MAX_BUFFERED_BYTES,
  PROTOCOL_VERSION,
  type RequestInfo,
  type UpgradeWebSocket,
} from "./chat_gateway.ts";
export {
  type ClientFrame,
  type ClientFrameParser,
  clientFrameParser,
  MAX_FRAME_BYTES,
} from "./client_frame.ts";
export { CHAT_PAGE } from "./chat_page.ts";
export {
  autoEngine,
  CHAT_ENGINES,
  type ChatBackend,
  type ChatEngine,
  chatModel,
  openChatSession,
} from "./chat_backend.ts";
export {
  composeTraces,
  createTurn,
  type Trace,
  type Turn,
  TURN_TYPES,
  turnFromDict,
  turnToDict,
  type TurnType,
} from "./turn.ts";
