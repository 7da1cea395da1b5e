/**
 * The fast path of a forwarded `tools/call`: the client's request goes to the upstream as
 * the JSON-RPC message it is (under an id of the proxy's own), and the upstream's answer
 * comes back as it is (under the client's id), past the SDK's request machinery on both
 * sides — its schema parsing and promise chains were most of the proxy's cost per call
 * (`scripts/bench_proxy.ts`). Progress and cancellation are carried by the same ids; the
 * call is recorded as on the SDK's path. Composites, and 2026-era requests (served per
 * request by the SDK), stay on the SDK's path.
 */
import type { Client } from "@modelcontextprotocol/client";
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
  Transport,
} from "@modelcontextprotocol/server";
import { isRecord } from "../core/mod.ts";
import type { RecordedCall } from "../synthesize/mod.ts";
import { recordedOutput, resultOutcome } from "./call_result.ts";
import type { ProxyState } from "./_proxy_state.ts";
import { callOrigin } from "./_tool_call.ts";

type Message = Record<string, unknown>;

/** What a fast call waits for from the upstream. */
interface Expected {
  response(message: Message): void;
  progress(message: Message): void;
  closed(): void;
}

/**
 * The upstream connection's side: messages under the proxy's own ids (`syn-fast-N`, never
 * the SDK client's numbers) are taken before the SDK client sees them.
 */
export class UpstreamRelay {
  readonly #client: Client;
  readonly #expected = new Map<string, Expected>();
  #next = 0;
  #closed = false;

  constructor(client: Client) {
    this.#client = client;
    const transport = client.transport!;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.#take(message as unknown as Message)) deliver?.(message, extra);
    };
    const closed = transport.onclose;
    transport.onclose = () => {
      this.#closed = true;
      for (const expected of [...this.#expected.values()]) expected.closed();
      this.#expected.clear();
      closed?.();
    };
  }

  get open(): boolean {
    return !this.#closed && this.#client.transport !== undefined;
  }

  /** Sends `message` (a request without its id) under a fresh id; `expected` gets the answer. */
  send(message: Message, expected: Expected, progress: boolean): string {
    const id = `syn-fast-${++this.#next}`;
    this.#expected.set(id, expected);
    let params = message.params as Message | undefined;
    if (progress) {
      params = { ...params, _meta: { ...(params?._meta as Message), progressToken: id } };
    }
    this.#client.transport!.send({ ...message, params, id } as unknown as JSONRPCMessage)
      .catch(() => this.#settle(id)?.closed());
    return id;
  }

  /** Tells the upstream a fast call was cancelled; its answer, if any, is dropped. */
  cancel(id: string, reason: unknown): void {
    if (!this.#settle(id)) return;
    this.#client.transport?.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, ...(typeof reason === "string" ? { reason } : {}) },
    }).catch(() => {});
  }

  #settle(id: string): Expected | undefined {
    const expected = this.#expected.get(id);
    this.#expected.delete(id);
    return expected;
  }

  #take(message: Message): boolean {
    if (message.method === "notifications/progress") {
      const token = (message.params as Message | undefined)?.progressToken;
      const expected = typeof token === "string" ? this.#expected.get(token) : undefined;
      expected?.progress(message);
      return expected !== undefined;
    }
    if (message.method !== undefined || typeof message.id !== "string") return false;
    const expected = this.#settle(message.id);
    expected?.response(message);
    return expected !== undefined;
  }
}

/** Options of {@linkcode FastCallTransport}. */
export interface FastCallsOptions {
  state: ProxyState;
  /** The session's requests being served: a fast call counts (the upstream's requests go there). */
  session: { inFlight: Set<RequestId> };
  relay: UpstreamRelay;
  /** Whether the session is served on a 2025-era protocol (the fast path's condition). */
  legacy(): boolean;
  maxInFlight: number;
}

/**
 * A server transport that answers forwarded `tools/call`s on the fast path and hands every
 * other message to the SDK's server as it came.
 */
export class FastCallTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #options: FastCallsOptions;
  /** Fast calls in flight, by the client's id: the upstream's id, and how to end it cancelled. */
  readonly #calls = new Map<RequestId, { upstreamId: string; cancelled(): void }>();

  constructor(inner: Transport, options: FastCallsOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      if (!this.#fast(message as unknown as Message)) this.onmessage?.(message, extra);
    };
    this.#inner.onclose = () => this.onclose?.();
    this.#inner.onerror = (error) => this.onerror?.(error);
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  #fast(message: Message): boolean {
    if (message.method === "notifications/cancelled") {
      const params = message.params as Message | undefined;
      const call = this.#calls.get(params?.requestId as RequestId);
      if (!call) return false;
      this.#options.relay.cancel(call.upstreamId, params?.reason);
      call.cancelled();
      return true;
    }
    if (message.method !== "tools/call" || message.id === undefined) return false;
    const { state, relay, maxInFlight } = this.#options;
    const params = message.params;
    if (!isRecord(params) || typeof params.name !== "string") return false;
    if (state.composites.has(params.name) || !relay.open || !this.#options.legacy()) return false;
    if (state.inFlight.count >= maxInFlight) return false;
    this.#call(message.id as RequestId, params);
    return true;
  }

  #call(clientId: RequestId, params: Message): void {
    const { state, session, relay } = this.#options;
    const started = state.now();
    state.inFlight.count++;
    session.inFlight.add(clientId);
    const meta = isRecord(params._meta) ? params._meta : undefined;
    const progressToken = meta?.progressToken;
    const sendOptions = { relatedRequestId: clientId };
    // The answer goes first; what is recorded is worked out after, off the client's wait.
    const finish = (answer: Message | undefined, recorded: () => Parameters<typeof record>[1]) => {
      this.#calls.delete(clientId);
      state.inFlight.count--;
      session.inFlight.delete(clientId);
      if (answer) {
        this.#inner.send(answer as unknown as JSONRPCMessage, sendOptions).catch(() => {});
      }
      record(state, recorded(), { params, started, sessionId: this.sessionId });
    };
    const upstreamId = relay.send({ jsonrpc: "2.0", method: "tools/call", params }, {
      response: (response) => {
        const answer = { ...response, id: clientId };
        if (isRecord(response.result)) {
          const result = response.result as Parameters<typeof resultOutcome>[0];
          return finish(answer, () => ({
            outcome: resultOutcome(result),
            output: recordedOutput(result),
          }));
        }
        const error = isRecord(response.error) ? response.error : {};
        finish(answer, () => ({
          outcome: "FAILURE",
          output: { text: `error: ${String(error.message ?? "no result")}` },
        }));
      },
      progress: (notification) => {
        this.#inner.send({
          ...notification,
          params: { ...(notification.params as Message), progressToken },
        } as unknown as JSONRPCMessage, sendOptions).catch(() => {});
      },
      closed: () =>
        finish({
          jsonrpc: "2.0",
          id: clientId,
          error: { code: -32000, message: "Connection closed: the upstream went away" },
        }, () => ({ outcome: "FAILURE", output: { text: "error: Connection closed" } })),
    }, progressToken !== undefined);
    this.#calls.set(clientId, {
      upstreamId,
      // A cancelled call gets no answer (the protocol says so); it is recorded as failed.
      cancelled: () =>
        finish(undefined, () => ({ outcome: "FAILURE", output: { text: "error: cancelled" } })),
    });
  }
}

function record(
  state: ProxyState,
  recorded: { outcome: RecordedCall["outcome"]; output: RecordedCall["output"] },
  call: { params: Message; started: number; sessionId: string | undefined },
): void {
  state.recorder.record({
    tool: call.params.name as string,
    args: isRecord(call.params.arguments) ? call.params.arguments : {},
    output: recorded.output,
    outcome: recorded.outcome,
    latencyMs: state.now() - call.started,
    startedMs: call.started,
    sessionId: call.sessionId ?? state.sessionId,
    ...callOrigin(state),
  });
}
