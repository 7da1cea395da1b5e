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
export async function* dialogue(
  request: DialogueRequest,
  options: DialogueOptions,
): AsyncGenerator<DialogueEvent> {
  const trace = options.trace ?? (() => {});
  const maxRounds = options.maxToolRounds ?? 4;
  const messages: LlmMessage[] = [...request.messages];
  const clock = options.clock ?? systemClock;
  using deadline = replyDeadline(request, options.timers ?? systemTimers);
  const { signal, timeout } = deadline;
  let content = "";
  let tokensUsed = 0;
  let rounds = 0;
  let model = options.model;
  let fallback = false;
  const stopped = () => request.signal?.aborted === true;

  while (true) {
    const markers = new MarkerStream();
    const blocks: MarkerBlock[] = [];
    let answer = "";
    const started = clock.now();
    trace("llm_req", {
      round: rounds,
      provider: model.provider,
      model: model.model,
      messages: messages.length,
      tier: request.tier,
    });
    // Visible text waiting to be yielded (when there is no `onText` to take it at once).
    const visible: string[] = [];
    let deltas = 0;
    const onDelta = (text: string) => {
      deltas++;
      answer += text;
      const out = markers.push(text);
      blocks.push(...out.blocks);
      if (!out.visible) return;
      content += out.visible;
      if (options.onText) options.onText(out.visible);
      else visible.push(out.visible);
    };
    const texts = () => visible.splice(0).map((text): DialogueEvent => ({ type: "text", text }));
    try {
      for await (
        const event of model.stream({
          system: request.system,
          messages,
          maxTokens: Math.max(1, maxTokensForTier(request.tier)),
          signal,
          onTextDelta: onDelta,
        })
      ) {
        tokensUsed += event.result.usage?.outputTokens ?? Math.ceil(event.result.text.length / 4);
        yield* texts();
      }
      trace("llm_stream", { round: rounds, deltas, chars: answer.length });
      trace("llm_done", { round: rounds, ms: clock.now() - started });
    } catch (error) {
      yield* texts();
      const tail = markers.end();
      if (tail.visible) {
        content += tail.visible;
        yield { type: "text", text: tail.visible };
      }
      if (stopped()) break;
      if (timeout.aborted) {
        trace("llm_done", { round: rounds, ms: clock.now() - started, error: "timeout" });
        yield {
          type: "error",
          code: "STREAM_TIMEOUT",
          message: "The reply took longer than the stream timeout",
        };
        break;
      }
      if (!fallback && options.fallback && isUnavailable(error)) {
        trace("llm_done", { round: rounds, ms: clock.now() - started, error: reasonOf(error) });
        yield {
          type: "error",
          code: "LLM_UNAVAILABLE",
          message: `The language model is unavailable (${
            reasonOf(error)
          }); answering from the template backend`,
        };
        model = options.fallback;
        fallback = true;
        continue;
      }
      trace("llm_done", { round: rounds, ms: clock.now() - started, error: reasonOf(error) });
      yield {
        type: "error",
        code: "LLM_UNAVAILABLE",
        message: `The language model failed: ${reasonOf(error)}`,
      };
      break;
    }
    const tail = markers.end();
    blocks.push(...tail.blocks);
    if (tail.visible) {
      content += tail.visible;
      yield { type: "text", text: tail.visible };
    }
    for (const block of blocks.filter((block) => block.kind === "notes")) {
      const { payload, problems } = parseBlock(block);
      const parsed = payload === undefined
        ? { problems }
        : { payload, problems: [...problems, ...parseNotesPatch(payload).problems] };
      yield { type: "notes", payload: parsed.payload, problems: parsed.problems };
    }
    const callBlocks = blocks.filter((block) => block.kind === "tool_calls");
    if (!callBlocks.length || !options.tools || stopped()) break;
    if (rounds >= maxRounds) {
      trace("tool_plan", { round: rounds, refused: "tool round limit reached" });
      break;
    }
    rounds++;
    messages.push({ role: "assistant", content: answer });
    const feedback: string[] = [];
    for (const block of callBlocks) {
      const calls = toolCallsOf(block, feedback);
      trace("tool_plan", {
        round: rounds,
        calls: calls.length,
        tools: calls.map((call) =>
          typeof (call as ToolCall).tool === "string" ? (call as ToolCall).tool : "?"
        ),
      });
      for (const call of calls) yield { type: "tool_call", call: call as ToolCall };
      const results = calls.length ? await options.tools(calls) : [];
      for (const result of results) {
        yield { type: "tool_result", result };
        feedback.push(JSON.stringify(result));
      }
    }
    messages.push({ role: "user", content: toolMessage(feedback) });
  }
  yield {
    type: "done",
    content,
    tokensUsed,
    entropyCost: entropyOfTokens(tokensUsed),
    stopped: stopped(),
    rounds,
    fallback,
  };
}

/**
 * The signal a reply runs under: the caller's stop, or `timeoutMs` run out on `timers`
 * (then `timeout` is aborted too). Disposing it clears the timer.
 */
function replyDeadline(request: DialogueRequest, timers: Timers) {
  const expired = new AbortController();
  const handle = timers.set(
    () => expired.abort(new DOMException("The reply took longer than its timeout", "TimeoutError")),
    request.timeoutMs,
  );
  const timeout = expired.signal;
  return {
    timeout,
    signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
    [Symbol.dispose]: () => timers.clear(handle),
  };
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
