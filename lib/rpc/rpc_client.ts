import { errorMessage, startTimer, utf8ByteLength } from "../core/mod.ts";
import type { RpcConnection } from "./connection.ts";
import { isJsonRpcId, type JsonRpcErrorObject, type JsonRpcId, RPC_ERROR } from "./messages.ts";
import { MAX_LINE_BYTES, peekRequestId, readNdjsonLines } from "./ndjson.ts";

/** How a call ended: a result, a JSON-RPC error, or a failure of the channel itself. */
export type RpcOutcome =
  | { kind: "result"; result: unknown }
  | { kind: "error"; error: JsonRpcErrorObject }
  | {
    kind: "failure";
    reason: "transport_error" | "timeout" | "payload_too_large";
    detail: string;
  };

interface Pending {
  resolve(outcome: RpcOutcome): void;
  /** Cancels the call's timeout. */
  cancelTimer?: () => void;
}

/**
 * A JSON-RPC 2.0 client over one NDJSON connection. Never throws and never hangs: every
 * call resolves with an `RpcOutcome` — on a reply, on its timeout, or when the
 * connection ends (every pending call is then resolved with `transport_error`). The
 * 1 MiB line cap holds both ways: an oversized request is not sent, an oversized reply
 * is discarded unparsed.
 */
export class RpcClient {
  readonly #connection: RpcConnection;
  readonly #pending = new Map<JsonRpcId, Pending>();
  readonly #maxLineBytes: number;
  readonly #reading: Promise<void>;
  readonly #stopReading = new AbortController();
  #nextId = 1;
  #closedDetail: string | undefined;
  #describeClose: () => string;

  constructor(
    connection: RpcConnection,
    options: { maxLineBytes?: number; describeClose?: () => string } = {},
  ) {
    this.#connection = connection;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#describeClose = options.describeClose ?? (() => "connection closed");
    this.#reading = this.#read();
  }

  /** Why the connection is gone, or `undefined` while it is open. */
  get closedDetail(): string | undefined {
    return this.#closedDetail;
  }

  /** Sends a request and waits for its outcome (at most `timeoutMs`, default 10 s). */
  request(
    method: string,
    params?: Record<string, unknown>,
    options: { timeoutMs?: number } = {},
  ): Promise<RpcOutcome> {
    if (this.#closedDetail !== undefined) {
      return Promise.resolve({
        kind: "failure",
        reason: "transport_error",
        detail: this.#closedDetail,
      });
    }
    const id = this.#nextId++;
    let text: string;
    try {
      text = JSON.stringify(
        params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params },
      ) + "\n";
    } catch (error) {
      return Promise.resolve({
        kind: "failure",
        reason: "transport_error",
        detail: `request is not JSON: ${errorMessage(error)}`,
      });
    }
    const bytes = utf8ByteLength(text) - 1;
    if (bytes > this.#maxLineBytes) {
      return Promise.resolve({
        kind: "failure",
        reason: "payload_too_large",
        detail: `request is ${bytes} bytes; the limit is ${this.#maxLineBytes}`,
      });
    }
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise<RpcOutcome>((resolve) => {
      const pending: Pending = { resolve };
      if (Number.isFinite(timeoutMs)) {
        pending.cancelTimer = startTimer(timeoutMs, () => {
          this.#pending.delete(id);
          resolve({
            kind: "failure",
            reason: "timeout",
            detail: `no reply within ${timeoutMs} ms`,
          });
        });
      }
      this.#pending.set(id, pending);
      this.#connection.write(text).catch((error) => {
        this.#settle(id, {
          kind: "failure",
          reason: "transport_error",
          detail: `write failed: ${errorMessage(error)}`,
        });
      });
    });
  }

  /** Sends a notification (no reply expected); false when it could not be sent. */
  async notify(method: string, params?: Record<string, unknown>): Promise<boolean> {
    if (this.#closedDetail !== undefined) return false;
    try {
      await this.#connection.write(
        JSON.stringify(
          params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
        ) + "\n",
      );
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Closes the connection; pending calls resolve with `transport_error`. Does not wait
   * for the peer: whatever it still sends is not read.
   */
  async close(): Promise<void> {
    this.#finish("client closed");
    this.#connection.close();
    this.#stopReading.abort();
    await this.#reading;
  }

  #settle(id: JsonRpcId, outcome: RpcOutcome): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.cancelTimer?.();
    pending.resolve(outcome);
  }

  #finish(detail: string): void {
    if (this.#closedDetail === undefined) this.#closedDetail = detail;
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id, { kind: "failure", reason: "transport_error", detail: this.#closedDetail });
    }
  }

  async #read(): Promise<void> {
    try {
      for await (
        const line of readNdjsonLines(this.#connection.readable, {
          maxLineBytes: this.#maxLineBytes,
          signal: this.#stopReading.signal,
        })
      ) {
        if (line.kind === "oversize") {
          // Replies come in request order, so an unreadable one belongs to the oldest call.
          const id = peekRequestId(line.prefix) ?? this.#pending.keys().next().value;
          if (id !== undefined) {
            this.#settle(id, {
              kind: "failure",
              reason: "transport_error",
              detail: `reply is ${line.bytes} bytes; the limit is ${this.#maxLineBytes}`,
            });
          }
          continue;
        }
        this.#receive(line.text);
      }
      this.#finish(this.#describeClose());
    } catch (error) {
      this.#finish(
        this.#closedDetail ??
          `connection failed: ${errorMessage(error)}`,
      );
    }
  }

  #receive(text: string): void {
    if (text.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not ours to answer; a reply that cannot be read times out or is closed out
    }
    if (message === null || typeof message !== "object" || Array.isArray(message)) return;
    const envelope = message as Record<string, unknown>;
    if (envelope.id === null && envelope.error !== undefined) {
      // The server could not read one of our lines: it belongs to the oldest call.
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) {
        this.#settle(oldest, { kind: "error", error: envelope.error as JsonRpcErrorObject });
      }
      return;
    }
    if (envelope.id === null && envelope.result !== undefined) {
      const oldest = this.#pending.keys().next().value;
      if (oldest !== undefined) this.#settle(oldest, { kind: "result", result: envelope.result });
      return;
    }
    if (!isJsonRpcId(envelope.id)) return;
    if (Object.hasOwn(envelope, "error")) {
      const error = envelope.error as JsonRpcErrorObject;
      this.#settle(envelope.id, {
        kind: "error",
        error: error && typeof error === "object"
          ? error
          : { code: RPC_ERROR.internalError, message: "malformed error reply" },
      });
    } else {
      this.#settle(envelope.id, { kind: "result", result: envelope.result });
    }
  }
}
