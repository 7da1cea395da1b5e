import { type Clock, errorMessage, systemClock, systemTimers, type Timers } from "../core/mod.ts";
import type { ChatMessage as LlmMessage, LanguageModel } from "../llm/mod.ts";
import { ProviderError } from "../llm/mod.ts";
import type { ToolCall, ToolResult } from "../tools/mod.ts";
import { type ChatState, parseNotesPatch } from "./chat_state.ts";
import { type BudgetTier, maxTokensForTier } from "./chat_flux_config.ts";
import { type MarkerBlock, MarkerStream } from "./marker_stream.ts";

/** Runs tool calls in order and returns their results (a `ToolSession.callAll`). */
export type ToolRunner = (calls: readonly unknown[]) => Promise<ToolResult[]>;

/** A trace event of the dialogue (Spectator §6): `kind` and ids/counts/timings only. */
export type DialogueTrace = (kind: string, data: Record<string, unknown>) => void;

/** What one reply produces, in order. */
export type DialogueEvent =
  | { type: "text"; text: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "tool_result"; result: ToolResult }
  | { type: "notes"; payload: unknown; problems: string[] }
  | { type: "error"; code: "STREAM_TIMEOUT" | "LLM_UNAVAILABLE"; message: string }
  | {
    type: "done";
    content: string;
    tokensUsed: number;
    entropyCost: number;
    stopped: boolean;
    rounds: number;
    fallback: boolean;
  };

export interface DialogueRequest {
  /** The system prompt (state, retrieved memory and protocol rules already in it). */
  system: string;
  /** The conversation so far, the new user message last. */
  messages: readonly LlmMessage[];
  tier: BudgetTier;
  /** Stops the reply (the user's `stop`): the provider request is aborted. */
  signal?: AbortSignal;
  /** Longest the whole reply may take, ms. */
  timeoutMs: number;
}

export interface DialogueOptions {
  model: LanguageModel;
  /** The offline model used when `model` is unavailable (the template backend). */
  fallback?: LanguageModel;
  tools?: ToolRunner;
  /** Tool rounds after the first answer (default 4). */
  maxToolRounds?: number;
  trace?: DialogueTrace;
  /** Times each model round for the trace (default `systemClock`). */
  clock?: Clock;
  /** Fires the reply's `timeoutMs` (default `systemTimers`). */
  timers?: Timers;
  /**
   * Takes visible text the moment the model's stream decodes it (`onTextDelta`), in the
   * same step as the read that carried it, instead of as a `text` event one scheduling
   * turn later. Without it, visible text is yielded as `text` events.
   */
  onText?: (text: string) => void;
}

/** Tool calls in one block above this are refused as a whole. */
const MAX_CALLS_PER_BLOCK = 16;

/**
 * One reply: stream the model, show visible text as it comes (marker blocks never), run
 * the TOOL_CALLS of each answer in order in the sandbox, feed their results back as
 * tool messages, and repeat for at most `maxToolRounds` rounds. A malformed block is
 * traced and answered to the model, never fatal. An unavailable model falls back to
 * the template backend after an `LLM_UNAVAILABLE` event; a timeout ends the reply with
 * `STREAM_TIMEOUT`. Always ends with exactly one `done` whose `content` is all the
 * visible text of all rounds.
 */
export function dialogue(
  request: DialogueRequest,
  options: DialogueOptions,
): AsyncGenerator<DialogueEvent> {
  // One generator for the whole reply: each level of `yield*` is one more suspended
  // generator, request and pair of await closures held while the reply streams.
  return new ReplyRun(request, options).run();
}

/** How one model round's stream ended. */
type RoundOutcome =
  | { failed: false; answer: string; blocks: MarkerBlock[] }
  | { failed: true; error: unknown; started: number };

/** One reply in progress: the conversation it extends and what it has produced so far. */
class ReplyRun {
  readonly #request: DialogueRequest;
  readonly #options: DialogueOptions;
  readonly #trace: DialogueTrace;
  readonly #clock: Clock;
  readonly #messages: LlmMessage[];
  #model: LanguageModel;
  /** All visible text of all rounds. */
  #content = "";
  #tokensUsed = 0;
  #rounds = 0;
  #fallback = false;

  constructor(
    request: DialogueRequest,
    options: DialogueOptions,
  ) {
    this.#request = request;
    this.#options = options;
    this.#trace = options.trace ?? (() => {});
    this.#clock = options.clock ?? systemClock;
    this.#messages = [...request.messages];
    this.#model = options.model;
  }

  /** Model rounds, each followed by its tool calls, until one needs none; then `done`. */
  async *run(): AsyncGenerator<DialogueEvent> {
    using deadline = new ReplyDeadline(this.#request, this.#options.timers ?? systemTimers);
    const maxRounds = this.#options.maxToolRounds ?? 4;
    while (true) {
      const round = yield* this.#streamRound(deadline.signal);
      if (round.failed) {
        if (yield* this.#recoverFrom(round.error, round.started, deadline)) continue;
        break;
      }
      yield* notesEvents(round.blocks);
      const callBlocks = round.blocks.filter((block) => block.kind === "tool_calls");
      if (!callBlocks.length || !this.#options.tools || this.#stopped()) break;
      if (this.#rounds >= maxRounds) {
        this.#trace("tool_plan", { round: this.#rounds, refused: "tool round limit reached" });
        break;
      }
      this.#rounds++;
      this.#messages.push({ role: "assistant", content: round.answer });
      yield* this.#runToolCalls(callBlocks, this.#options.tools);
    }
    yield {
      type: "done",
      content: this.#content,
      tokensUsed: this.#tokensUsed,
      entropyCost: entropyOfTokens(this.#tokensUsed),
      stopped: this.#stopped(),
      rounds: this.#rounds,
      fallback: this.#fallback,
    };
  }

  #stopped(): boolean {
    return this.#request.signal?.aborted === true;
  }

  /** Streams one answer of the model, showing its visible text as it comes. */
  async *#streamRound(signal: AbortSignal): AsyncGenerator<DialogueEvent, RoundOutcome> {
    const text = new RoundText(this.#options.onText);
    const started = this.#clock.now();
    this.#trace("llm_req", {
      round: this.#rounds,
      provider: this.#model.provider,
      model: this.#model.model,
      messages: this.#messages.length,
      tier: this.#request.tier,
    });
    // Everything the model sent, markers included: its result's text, the deltas' concatenation.
    let answer = "";
    try {
      for await (const event of this.#model.stream(this.#modelRequest(text.push, signal))) {
        answer = event.result.text;
        this.#tokensUsed += event.result.usage?.outputTokens ?? Math.ceil(answer.length / 4);
        yield* text.takeWaiting();
      }
      this.#trace("llm_stream", { round: this.#rounds, deltas: text.deltas, chars: answer.length });
      this.#trace("llm_done", { round: this.#rounds, ms: this.#clock.now() - started });
    } catch (error) {
      yield* text.takeWaiting();
      // A failed stream's unfinished marker blocks are dropped, its visible text kept.
      yield* text.end();
      this.#content += text.visible;
      return { failed: true, error, started };
    }
    const blocks = yield* text.end();
    this.#content += text.visible;
    return { failed: false, answer, blocks };
  }

  #modelRequest(onTextDelta: (text: string) => void, signal: AbortSignal) {
    return {
      system: this.#request.system,
      messages: this.#messages,
      maxTokens: Math.max(1, maxTokensForTier(this.#request.tier)),
      signal,
      onTextDelta,
      // A reply never reads the provider's raw events; holding them all costs collections.
      keepRaw: false,
    };
  }

  /**
   * Reports a failed stream. True when the reply goes on with the fallback model (once,
   * for an unavailable model); false when it ends: stopped, timed out or failed.
   */
  *#recoverFrom(
    error: unknown,
    started: number,
    deadline: ReplyDeadline,
  ): Generator<DialogueEvent, boolean> {
    if (this.#stopped()) return false;
    const round = this.#rounds;
    const ms = this.#clock.now() - started;
    if (deadline.timedOut) {
      this.#trace("llm_done", { round, ms, error: "timeout" });
      yield {
        type: "error",
        code: "STREAM_TIMEOUT",
        message: "The reply took longer than the stream timeout",
      };
      return false;
    }
    this.#trace("llm_done", { round, ms, error: reasonOf(error) });
    if (!this.#fallback && this.#options.fallback && isUnavailable(error)) {
      yield {
        type: "error",
        code: "LLM_UNAVAILABLE",
        message: `The language model is unavailable (${
          reasonOf(error)
        }); answering from the template backend`,
      };
      this.#model = this.#options.fallback;
      this.#fallback = true;
      return true;
    }
    yield {
      type: "error",
      code: "LLM_UNAVAILABLE",
      message: `The language model failed: ${reasonOf(error)}`,
    };
    return false;
  }

  /** Runs each TOOL_CALLS block's calls and sends their results back as the next message. */
  async *#runToolCalls(
    callBlocks: readonly MarkerBlock[],
    tools: ToolRunner,
  ): AsyncGenerator<DialogueEvent> {
    const feedback: string[] = [];
    for (const block of callBlocks) {
      const calls = toolCallsOf(block, feedback);
      this.#trace("tool_plan", {
        round: this.#rounds,
        calls: calls.length,
        tools: calls.map((call) =>
          typeof (call as ToolCall).tool === "string" ? (call as ToolCall).tool : "?"
        ),
      });
      for (const call of calls) yield { type: "tool_call", call: call as ToolCall };
      const results = calls.length ? await tools(calls) : [];
      for (const result of results) {
        yield { type: "tool_result", result };
        feedback.push(JSON.stringify(result));
      }
    }
    this.#messages.push({ role: "user", content: toolMessage(feedback) });
  }
}

/**
 * The text of one model round as it streams: marker blocks are taken out, visible text
 * goes to `onText` at once or waits to be yielded as `text` events.
 */
class RoundText {
  deltas = 0;
  readonly #markers = new MarkerStream();
  readonly #blocks: MarkerBlock[] = [];
  /**
   * The visible pieces, joined once the round ends: a pointer each while the reply runs,
   * where adding each to a string would keep a 32-byte cons cell per delta alive.
   */
  readonly #visible: string[] = [];
  readonly #waiting: string[] = [];
  readonly #onText?: (text: string) => void;

  constructor(onText?: (text: string) => void) {
    this.#onText = onText;
  }

  /** The visible part of what the model sent (so far). */
  get visible(): string {
    return this.#visible.join("");
  }

  /** Takes one decoded piece of the stream (the model's `onTextDelta`). */
  push = (text: string): void => {
    this.deltas++;
    const visible = this.#markers.take(text, this.#blocks);
    if (!visible) return;
    this.#visible.push(visible);
    if (this.#onText) this.#onText(visible);
    else this.#waiting.push(visible);
  };

  /** Visible text waiting to be yielded. */
  *takeWaiting(): Generator<DialogueEvent> {
    for (const text of this.#waiting.splice(0)) yield { type: "text", text };
  }

  /** Ends the stream: yields what the markers held back, returns every complete block. */
  *end(): Generator<DialogueEvent, MarkerBlock[]> {
    const tail = this.#markers.end();
    this.#blocks.push(...tail.blocks);
    if (tail.visible) {
      this.#visible.push(tail.visible);
      yield { type: "text", text: tail.visible };
    }
    return this.#blocks;
  }
}

/** A `notes` event per NOTES block, with the problems of its JSON and of its patch. */
function* notesEvents(blocks: readonly MarkerBlock[]): Generator<DialogueEvent> {
  for (const block of blocks) {
    if (block.kind !== "notes") continue;
    const { payload, problems } = parseBlock(block);
    const parsed = payload === undefined
      ? { problems }
      : { payload, problems: [...problems, ...parseNotesPatch(payload).problems] };
    yield { type: "notes", payload: parsed.payload, problems: parsed.problems };
  }
}

/**
 * The signal a reply runs under: aborted by the caller's stop (with its reason) or when
 * `timeoutMs` runs out on `timers` (then `timedOut` is true). The caller's signal is
 * linked by one listener rather than `AbortSignal.any`, whose weak references and sets
 * stay with the caller's signal; disposing it clears the timer and removes the listener,
 * so nothing of a finished reply is left on the caller's signal.
 */
class ReplyDeadline {
  readonly #controller = new AbortController();
  readonly #caller?: AbortSignal;
  readonly #timers: Timers;
  readonly #timer: unknown;
  /** True once `timeoutMs` ran out. */
  timedOut = false;

  constructor(request: DialogueRequest, timers: Timers) {
    this.#timers = timers;
    const caller = request.signal;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else if (caller) {
      this.#caller = caller;
      caller.addEventListener("abort", this, { once: true });
    }
    this.#timer = timers.set(() => {
      this.timedOut = true;
      this.#controller.abort(
        new DOMException("The reply took longer than its timeout", "TimeoutError"),
      );
    }, request.timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The caller's stop (this object is the listener: no closure per reply). */
  handleEvent(): void {
    this.#controller.abort(this.#caller?.reason);
  }

  [Symbol.dispose](): void {
    this.#timers.clear(this.#timer);
    this.#caller?.removeEventListener("abort", this);
  }
}

/**
 * Entropy of a reply by its output tokens: the tier mapping of K-gent API §B5 is linear
 * (WHISPER 100 → 0.001, DIALOGUE 4000 → 0.04, DEEP 8000 → 0.08), i.e. 1e-5 per token.
 */
export function entropyOfTokens(tokens: number): number {
  return Number((tokens * 1e-5).toFixed(6));
}

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return true;
  return ["network_error", "timeout", "server_error", "auth_error", "rate_limited"].includes(
    error.reason,
  );
}

function reasonOf(error: unknown): string {
  return error instanceof ProviderError ? error.reason : errorMessage(error).slice(0, 200);
}

function parseBlock(block: MarkerBlock): { payload?: unknown; problems: string[] } {
  if (!block.closed) return { problems: [`${block.kind} block was not closed`] };
  try {
    return { payload: JSON.parse(block.payload), problems: [] };
  } catch {
    return { problems: [`${block.kind} block is not valid JSON`] };
  }
}

/** The calls of a TOOL_CALLS block; problems go back to the model as feedback. */
function toolCallsOf(block: MarkerBlock, feedback: string[]): unknown[] {
  const { payload, problems } = parseBlock(block);
  if (problems.length) {
    feedback.push(JSON.stringify({ error: problems[0] }));
    return [];
  }
  if (!Array.isArray(payload)) {
    feedback.push(JSON.stringify({ error: "TOOL_CALLS payload must be a JSON array" }));
    return [];
  }
  if (payload.length > MAX_CALLS_PER_BLOCK) {
    feedback.push(JSON.stringify({ error: `at most ${MAX_CALLS_PER_BLOCK} tool calls per block` }));
    return [];
  }
  const ids = new Set<string>();
  const calls: unknown[] = [];
  for (const call of payload) {
    const id = (call as { id?: unknown })?.id;
    if (typeof id === "string" && ids.has(id)) {
      feedback.push(
        JSON.stringify({ id, error: "tool call ids must be unique within a response" }),
      );
      continue;
    }
    if (typeof id === "string") ids.add(id);
    calls.push(call);
  }
  return calls;
}

/** Tool results as the next message: `role: "tool"` content, sent as a user turn on the wire. */
export function toolMessage(results: readonly string[]): string {
  return `TOOL_RESULTS (role=tool, one JSON per line):\n${results.join("\n")}`;
}

/** Exported for the gateway's state handling: the notes of a reply applied to a state. */
export type { ChatState };
