import { type Clock, sha256Hex, systemClock, systemTimers, type Timers } from "../core/mod.ts";
import type { ChatMessage as LlmMessage, LanguageModel } from "../llm/mod.ts";
import { grantCapability, revokeCapability, type ToolSession } from "../tools/mod.ts";
import type { ChatErrorCode } from "./chat_event.ts";
import { type BudgetTier, type ChatFluxConfig, entropyForTier } from "./chat_flux_config.ts";
import {
  applyNotesPatch,
  type ChatState,
  type NotesPatch,
  parseNotesPatch,
  runNotesActions,
} from "./chat_state.ts";
import { type Checkpoint, condense, newCheckpoint, type StoredMessage } from "./checkpoint.ts";
import type { CheckpointStore } from "./checkpoint_store.ts";
import { dialogue, type DialogueEvent, toolMessage } from "./dialogue.ts";
import { EntropyBucket } from "./entropy_bucket.ts";
import {
  checkCitations,
  type MemoryHit,
  type MemoryStore,
  RETRIEVED_MEMORY_LABEL,
  retrievedMemoryBlock,
  type SessionMemory,
} from "./memory_store.ts";
import { ReplyBuffer } from "./reply_buffer.ts";
import { composeTraces, createTurn, type Trace, type Turn } from "./turn.ts";
import { createChatMessage } from "./chat_message.ts";

/** Dialogue modes a message may ask for (K-gent API §3); each is a DIALOGUE-tier reply. */
export const DIALOGUE_MODES = ["reflect", "advise", "challenge", "explore"] as const;

/** A trace line sink: `{ts, kind, data}` (Spectator §6). */
export type TraceWriter = (
  event: { ts: number; kind: string; data: Record<string, unknown> },
) => void;

export interface ChatSessionOptions {
  id: string;
  agent?: string;
  model: LanguageModel;
  /** The template backend, used when `model` is unavailable. */
  fallback: LanguageModel;
  tools?: ToolSession;
  store?: CheckpointStore;
  /**
   * The process's memory store (one for every session); the session works through its own
   * view of it, released by `close()`.
   */
  memory?: MemoryStore;
  /** Let retrieval see other sessions' memory (an explicit opt-in; default: this session's only). */
  memoryAcrossSessions?: boolean;
  trace?: TraceWriter;
  config: ChatFluxConfig;
  /** Write chat content into traces (`--log-content`); off: ids, counts and timings only. */
  logContent?: boolean;
  /** Seconds for an empty entropy bucket to fill again (default 60). */
  refillSeconds?: number;
  maxToolRounds?: number;
  /** Dates messages, turns, events and traces, and refills the budget (default `systemClock`). */
  clock?: Clock;
  /** Flushes held chunks and ends a reply at `stream_timeout` (default `systemTimers`). */
  timers?: Timers;
}

/** A message that starts a reply, already checked by the caller. */
export interface IncomingMessage {
  content: string;
  mode: string;
  correlation_id: string;
}

/** Why a message was refused before any reply started (one `error`, no `done`). */
export interface Refusal {
  code: ChatErrorCode;
  message: string;
  retry_after_seconds?: number;
}

/**
 * One conversation: its checkpoint, its entropy budget, its tool session and the reply
 * buffers of every message (kept so a reconnecting client can resume). A reply runs to its
 * end whether or not anyone listens; only `stop` cancels it.
 */
export class ChatSession {
  readonly id: string;
  readonly bucket: EntropyBucket;
  #options: ChatSessionOptions;
  #checkpoint: Checkpoint;
  #replies = new Map<string, ReplyBuffer>();
  #turns: Trace = [];
  #lastMessageTs: number | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #lastActive: number;
  #memory: SessionMemory | undefined;
  #closed = false;

  private constructor(options: ChatSessionOptions, checkpoint: Checkpoint) {
    this.id = options.id;
    this.#options = options;
    this.#memory = options.memory?.session(options.id, {
      acrossSessions: options.memoryAcrossSessions,
    });
    this.#checkpoint = checkpoint;
    this.#lastActive = this.#now();
    this.bucket = new EntropyBucket(options.config.entropy_budget, {
      refillSeconds: options.refillSeconds,
      clock: options.clock,
    });
    options.tools?.setCapabilities(checkpoint.state);
  }

  /**
   * Opens a session from its checkpoint (history included), or a new one. Capabilities
   * granted in an earlier run come back pending, not granted: a grant belongs to whoever
   * made it, for as long as their run lasts, and whoever opens the session next — another
   * terminal, any WebSocket client — must grant it again.
   */
  static async open(options: ChatSessionOptions): Promise<ChatSession> {
    const now = (options.clock ?? systemClock).now();
    const stored = await options.store?.load(options.id);
    return new ChatSession(
      options,
      stored ? withGrantsPending(stored) : newCheckpoint(options.id, now / 1000),
    );
  }

  /**
   * Ends the session: stops its running replies, writes its checkpoint, and frees what it
   * holds — the tool sandbox (a worker), the http cache, its view of the memory store (the
   * shared store stays open for the other sessions). Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const reply of this.#replies.values()) {
      if (!reply.done) reply.abort.abort(new DOMException("session closed", "AbortError"));
    }
    try {
      await this.#serial(() => this.#save());
    } finally {
      this.#options.tools?.close();
      this.#memory?.close();
      this.#memory = undefined;
    }
  }

  get checkpoint(): Checkpoint {
    return this.#checkpoint;
  }

  get lastActive(): number {
    return this.#lastActive;
  }

  /** The SPEECH turns of this process's replies, in order (the session's TraceMonoid). */
  get turns(): Trace {
    return this.#turns;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The reply of a correlation id (for `resume`). */
  reply(correlationId: string): ReplyBuffer | undefined {
    return this.#replies.get(correlationId);
  }

  /** Stops a running reply; false when there is none or it already ended. */
  stop(correlationId: string): boolean {
    const reply = this.#replies.get(correlationId);
    if (!reply || reply.done) return false;
    reply.abort.abort(new DOMException("stopped by the user", "AbortError"));
    return true;
  }

  /** Replaces the state (a `/grant`, `/revoke`) and persists it. */
  async updateState(change: (state: ChatState) => ChatState): Promise<void> {
    await this.#serial(async () => {
      this.#checkpoint = { ...this.#checkpoint, state: change(this.#checkpoint.state) };
      this.#options.tools?.setCapabilities(this.#checkpoint.state);
      await this.#save();
    });
  }

  /** Grants (or revokes) a capability for the user (`/grant`, `/revoke`) and persists it. */
  async setCapability(capability: string, granted: boolean): Promise<void> {
    await this.updateState((state) => {
      const next = granted
        ? grantCapability(state, capability)
        : revokeCapability(state, capability);
      return {
        ...state,
        capabilities_granted: [...next.capabilities_granted],
        capabilities_pending: [...next.capabilities_pending],
      };
    });
  }

  /** Condenses now (`/condense`) and persists. */
  async condenseNow(): Promise<void> {
    await this.#serial(async () => {
      this.#checkpoint = condense(this.#checkpoint, "condense_now");
      await this.#save();
    });
  }

  /** Writes the checkpoint now (`/checkpoint`); returns its revision. */
  async checkpointNow(): Promise<number> {
    await this.#serial(() => this.#save());
    return this.#checkpoint.revision;
  }

  /**
   * Starts a reply, or refuses the message before it starts (a duplicate correlation id,
   * an unknown mode, an empty budget). The returned buffer fills as the reply runs.
   */
  start(
    message: IncomingMessage,
    options: { clientBudget?: EntropyBucket } = {},
  ): ReplyBuffer | Refusal {
    if (this.#closed) return { code: "SESSION_EXPIRED", message: "This session is closed" };
    const now = this.#now();
    this.#lastActive = now;
    try {
      // K-gent §3: content non-empty; timestamps increase within a session.
      const timestamp = Math.max(now / 1000, (this.#lastMessageTs ?? 0) + 1e-6);
      this.#lastMessageTs =
        createChatMessage({ ...message, timestamp }, this.#lastMessageTs).timestamp;
    } catch (error) {
      return { code: "INVALID_MESSAGE", message: (error as Error).message };
    }
    if (this.#replies.has(message.correlation_id)) {
      return {
        code: "INVALID_MESSAGE",
        message: "correlation_id was already used in this session",
      };
    }
    if (!(DIALOGUE_MODES as readonly string[]).includes(message.mode)) {
      return {
        code: "INVALID_MESSAGE",
        message: `Unknown mode: ${message.mode.slice(0, 40)} (use ${DIALOGUE_MODES.join(", ")})`,
      };
    }
    const buckets = options.clientBudget ? [this.bucket, options.clientBudget] : [this.bucket];
    const tier = affordableTier(buckets);
    if (!tier) {
      const retry = Math.max(
        ...buckets.map((bucket) => bucket.retryAfterSeconds(entropyForTier("WHISPER"))),
      );
      return {
        code: "RATE_LIMITED",
        message: "Token budget exhausted",
        retry_after_seconds: retry,
      };
    }
    for (const bucket of buckets) bucket.trySpend(entropyForTier(tier));
    const buffer = new ReplyBuffer(message.correlation_id, this.#options.clock);
    this.#replies.set(message.correlation_id, buffer);
    void this.#serial(() => this.#run(buffer, message, tier)).catch((error) => {
      if (!buffer.done) {
        buffer.emit("error", {
          code: "LLM_UNAVAILABLE",
          message: `The reply failed: ${String(error).slice(0, 200)}`,
        });
        buffer.emit("done", { total_chunks: 0 });
      }
    });
    return buffer;
  }

  #now(): number {
    return (this.#options.clock ?? systemClock).now();
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => {});
    return next;
  }

  #trace(kind: string, data: Record<string, unknown>): void {
    try {
      this.#options.trace?.({
        ts: this.#now() / 1000,
        kind,
        data: { session_id: this.id, ...data },
      });
    } catch {
      // Tracing never breaks a reply.
    }
  }

  #append(role: StoredMessage["role"], content: string): void {
    const last = this.#checkpoint.recent_messages.at(-1)?.timestamp ?? 0;
    // ChatMessage law: timestamps increase within a session, even within one clock tick.
    const timestamp = Math.max(this.#now() / 1000, last + 1e-6);
    this.#checkpoint = {
      ...this.#checkpoint,
      recent_messages: [...this.#checkpoint.recent_messages, { role, content, timestamp }],
    };
  }

  async #run(buffer: ReplyBuffer, message: IncomingMessage, tier: BudgetTier): Promise<void> {
    const options = this.#options;
    const hits = this.#retrieve(message.content);
    const history = this.#history();
    this.#append("user", message.content);
    const stateBefore = this.#checkpoint.state;
    const statePre = stateHash(stateBefore);
    const timers = options.timers ?? systemTimers;
    const chunks = new ChunkCoalescer(buffer, options.config.buffer_chunks, timers);
    let done: Extract<DialogueEvent, { type: "done" }> | undefined;
    const toolLines: string[] = [];
    for await (
      const event of dialogue({
        system: this.#systemPrompt(hits),
        messages: [...history, { role: "user", content: message.content }],
        tier,
        signal: buffer.abort.signal,
        timeoutMs: options.config.stream_timeout * 1000,
      }, {
        model: options.model,
        fallback: options.fallback,
        tools: options.tools ? (calls) => options.tools!.callAll(calls) : undefined,
        maxToolRounds: options.maxToolRounds,
        clock: options.clock,
        timers,
        trace: options.trace
          ? (kind, data) => this.#trace(kind, { correlation_id: message.correlation_id, ...data })
          : undefined,
        onText: (text) => chunks.add(text),
      })
    ) {
      if (event.type === "text") chunks.add(event.text);
      else if (event.type === "tool_call") chunks.side({ tool_call: event.call });
      else if (event.type === "tool_result") {
        chunks.side({ tool_result: event.result });
        toolLines.push(JSON.stringify(event.result));
      } else if (event.type === "notes") {
        await this.#applyNotes(event.payload, event.problems, message.correlation_id);
      } else if (event.type === "error") {
        chunks.flush(false);
        buffer.emit("error", { code: event.code, message: event.message });
      } else done = event;
    }
    chunks.flush(true);
    const content = done?.content ?? "";
    if (toolLines.length) this.#append("tool", toolMessage(toolLines));
    if (content.trim()) this.#append("assistant", content);
    const turn = createTurn({
      content,
      source: `${options.agent ?? "kgent"}-soul`,
      turn_type: "SPEECH",
      state_hash_pre: statePre,
      // The state is replaced, never changed in place: the same object has the same hash.
      state_hash_post: this.#checkpoint.state === stateBefore
        ? statePre
        : stateHash(this.#checkpoint.state),
      confidence: done?.fallback ? 0.1 : 0.95,
      entropy_cost: done?.entropyCost ?? 0,
      timestamp: this.#now() / 1000,
    });
    this.#turns = composeTraces(this.#turns, [turn]);
    this.#checkCitations(content, hits, message.correlation_id);
    buffer.emit("message", {
      content,
      turn_id: turn.id,
      mode: message.mode,
      tokens_used: done?.tokensUsed ?? 0,
      entropy_cost: turn.entropy_cost,
    });
    await this.#remember(message.content, turn);
    this.#checkpoint = condense(this.#checkpoint, "condense_smart");
    this.#checkpoint = {
      ...this.#checkpoint,
      trace_tail: [...this.#checkpoint.trace_tail, turn.id].slice(-20),
    };
    await this.#save().catch((error) =>
      this.#trace("checkpoint_error", { message: String(error).slice(0, 200) })
    );
    this.#lastActive = this.#now();
    buffer.emit("done", { total_chunks: chunks.sent, ...(done?.stopped ? { stopped: true } : {}) });
  }

  /** The stored conversation as model messages; tool results travel as user turns. */
  #history(): LlmMessage[] {
    return this.#checkpoint.recent_messages.map((stored) => ({
      role: stored.role === "tool" ? "user" : stored.role,
      content: stored.content,
    }));
  }

  #retrieve(query: string): MemoryHit[] {
    const memory = this.#memory;
    if (!memory) return [];
    const hits = memory.search(query, 5);
    this.#trace("retrieval", { hits: hits.length, ids: hits.map((hit) => hit.id) });
    return hits;
  }

  #checkCitations(content: string, hits: MemoryHit[], correlationId: string): void {
    if (!this.#options.trace) return; // what it finds only goes to the trace
    const citations = checkCitations(content, new Set(hits.map((hit) => hit.id)));
    const unknown = citations.filter((citation) => !citation.valid).map((citation) => citation.id);
    if (citations.length) {
      this.#trace("citations", {
        correlation_id: correlationId,
        cited: citations.length,
        not_retrieved: unknown,
      });
    }
  }

  async #remember(userText: string, turn: Turn): Promise<void> {
    const memory = this.#memory;
    if (!memory || !turn.content.trim()) return;
    await memory.add({
      kind: "turn",
      text: `${userText}\n${turn.content}`,
      ts: turn.timestamp,
    });
  }

  #applyNotes(payload: unknown, problems: string[], correlationId: string): void {
    const parsed: { patch: NotesPatch; problems: string[] } = payload === undefined
      ? { patch: {}, problems: [] }
      : parseNotesPatch(payload);
    const all = [...problems, ...parsed.problems];
    const content = this.#options.logContent ? { patch: parsed.patch } : {};
    this.#trace("notes_patch", {
      correlation_id: correlationId,
      keys: Object.keys(parsed.patch),
      problems: all,
      ...content,
    });
    let state = applyNotesPatch(this.#checkpoint.state, parsed.patch);
    const actions = runNotesActions(state, parsed.patch.actions ?? []);
    state = actions.state;
    this.#checkpoint = { ...this.#checkpoint, state };
    for (const mode of actions.condense) this.#checkpoint = condense(this.#checkpoint, mode);
    this.#options.tools?.setCapabilities(state);
    this.#noteToMemory(parsed.patch);
    if (actions.outcomes.length) {
      this.#trace("actions", { correlation_id: correlationId, actions: actions.outcomes });
    }
  }

  /** Notes are memory too: goals, decisions, constraints and the summary, searchable later. */
  #noteToMemory(patch: NotesPatch): void {
    const memory = this.#memory;
    if (!memory) return;
    const parts = [
      ...(patch.set_goals ?? []).map((goal) => `goal: ${goal}`),
      ...(patch.add_decisions ?? []).map((decision) => `decision: ${decision}`),
      ...(patch.add_constraints ?? []).map((constraint) => `constraint: ${constraint}`),
      ...(patch.set_episode_summary ? [`summary: ${patch.set_episode_summary}`] : []),
    ];
    if (!parts.length) return;
    void memory.add({
      kind: "note",
      text: parts.join("\n"),
      ts: this.#now() / 1000,
    })
      .catch(() => {});
  }

  async #save(): Promise<void> {
    const store = this.#options.store;
    if (!store) return;
    this.#checkpoint = await store.save(this.#checkpoint, this.#now() / 1000);
  }

  #systemPrompt(hits: MemoryHit[]): string {
    const state = this.#checkpoint.state;
    const tools = this.#options.tools?.registry.list() ?? [];
    const lines = [
      `You are ${
        this.#options.agent ?? "kgent"
      }, a helpful assistant in a terminal and a web chat.`,
      "Answer in plain text. Keep replies short unless asked for depth.",
    ];
    if (tools.length) {
      lines.push(
        "",
        "You can call tools. Write one block, anywhere in your answer; it is hidden from the user:",
        '<<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.list_dir","args":{"path":"."}}]<<<END_TOOL_CALLS_JSON>>>',
        "Each call needs a unique id, a tool name and an args object. Results come back in the next message.",
        "Tools:",
        ...tools.map((tool) =>
          `- ${tool.name} ${
            JSON.stringify((tool.argsSchema as { properties?: unknown }).properties ?? {})
          }: ${tool.description}`
        ),
        `Network capabilities granted: ${state.capabilities_granted.join(", ") || "none"}.` +
          " To ask for one, add the action request_permission:net:<host> to a NOTES block; the user grants it.",
      );
    }
    lines.push(
      "",
      "To update the session notes, write a hidden block:",
      '<<<NOTES_JSON>>>{"set_goals":[],"add_open_loops":[],"close_open_loops":[],"add_decisions":[],"add_constraints":[],"set_episode_summary":"","add_memory_tags":[],"actions":[]}<<<END_NOTES_JSON>>>',
      "",
      `Goals: ${state.goals.join("; ") || "none"}`,
      `Open loops: ${state.open_loops.join("; ") || "none"}`,
      `Decisions: ${state.decisions.join("; ") || "none"}`,
      `Constraints: ${state.constraints.join("; ") || "none"}`,
      `Summary so far: ${state.episode_summary || "none"}`,
    );
    if (hits.length) {
      lines.push(
        "",
        RETRIEVED_MEMORY_LABEL,
        retrievedMemoryBlock(hits),
        "You may cite retrieved items inline as [mem:<id>].",
      );
    }
    return lines.join("\n");
  }
}

function stateHash(state: ChatState): string {
  return sha256Hex(JSON.stringify(state)).slice(0, 16);
}

/**
 * `buffer_chunks` coalescing: text deltas are gathered and sent as one `chunk` event per
 * `size` deltas — except the first, which goes out at once (time to first chunk is what a
 * user feels), and text held longer than `HOLD_MS`, which a timer flushes so a slow stream
 * is never held back. Tool activity goes out at once as a chunk with empty content (so
 * `concat(chunks) == message.content` still holds). The last chunk says `final: true`.
 */
const HOLD_MS = 40;

class ChunkCoalescer {
  sent = 0;
  #buffer: ReplyBuffer;
  #size: number;
  #pending = "";
  #count = 0;
  #timers: Timers;
  #timer: unknown;

  constructor(buffer: ReplyBuffer, size: number, timers: Timers) {
    this.#buffer = buffer;
    this.#size = Math.max(1, Math.floor(size));
    this.#timers = timers;
  }

  add(text: string): void {
    this.#pending += text;
    if (this.sent === 0 || ++this.#count >= this.#size) this.flush(false);
    else this.#timer ??= this.#timers.set(() => this.flush(false), HOLD_MS);
  }

  side(payload: Record<string, unknown>): void {
    this.flush(false);
    this.#buffer.emit("chunk", { content: "", final: false, ...payload });
    this.sent++;
  }

  flush(final: boolean): void {
    if (this.#timer !== undefined) {
      this.#timers.clear(this.#timer);
      this.#timer = undefined;
    }
    if (!this.#pending && !final) return;
    if (!this.#pending && final && this.sent === 0) return;
    this.#buffer.chunk(this.#pending, final);
    this.sent++;
    this.#pending = "";
    this.#count = 0;
  }
}

/** The richest tier every bucket can pay for (the session's and the client's). */
function affordableTier(buckets: readonly EntropyBucket[]): BudgetTier | undefined {
  const available = Math.min(...buckets.map((bucket) => bucket.available()));
  if (entropyForTier("DIALOGUE") <= available + 1e-12) return "DIALOGUE";
  if (entropyForTier("WHISPER") <= available + 1e-12) return "WHISPER";
  return undefined;
}

/** A stored checkpoint whose granted capabilities wait for a new grant (see `open`). */
function withGrantsPending(checkpoint: Checkpoint): Checkpoint {
  const state = checkpoint.state;
  if (state.capabilities_granted.length === 0) return checkpoint;
  const pending = [...new Set([...state.capabilities_pending, ...state.capabilities_granted])];
  return {
    ...checkpoint,
    state: { ...state, capabilities_granted: [], capabilities_pending: pending },
  };
}
