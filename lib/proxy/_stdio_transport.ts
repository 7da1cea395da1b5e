import {
  deserializeMessage,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/server";

/** The most bytes of a line not yet ended that are held (the SDK's stdio cap, 10 MiB). */
export const MAX_PENDING_INPUT_BYTES = 10 * 1024 * 1024;

/**
 * The MCP server side of standard input and output, as the SDK's stdio transport frames it
 * (one JSON-RPC message per line, `\r\n` accepted, a line that is not JSON skipped, one
 * that is not a JSON-RPC message reported, a line over 10 MiB refused and the connection
 * closed) with two differences:
 *
 * - At end of input, the requests still in flight are answered (or cancelled by the client)
 *   before the connection closes: a client that writes its requests and closes its end, as
 *   a shell pipe does, would otherwise lose them (the SDK's closes at once, and the
 *   requests in flight are aborted unanswered).
 * - It reads and writes with the runtime's own stdio, not Node's streams: the Node layer's
 *   stream plumbing was a measurable share of the proxy's cost per call.
 */
export class DrainingStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #input: ReadableStream<Uint8Array>;
  readonly #write: (bytes: Uint8Array) => void;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  /** Requests read and not yet answered. */
  readonly #unanswered = new Set<RequestId>();
  #inputEnded = false;
  #closed = false;

  constructor(
    input: ReadableStream<Uint8Array> = Deno.stdin.readable,
    write: (bytes: Uint8Array) => void = writeStdout,
  ) {
    this.#input = input;
    this.#write = write;
  }

  start(): Promise<void> {
    if (this.#reader) throw new Error("DrainingStdioServerTransport already started");
    this.#reader = this.#input.getReader();
    void this.#read(this.#reader);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const answers = !("method" in message) && "id" in message ? message.id : undefined;
    try {
      if (this.#closed) return Promise.reject(new Error("Not connected"));
      this.#write(encoder.encode(serializeMessage(message)));
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      if (answers !== undefined && this.#unanswered.delete(answers)) this.#endIfAnswered();
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    // Stops reading standard input, so nothing keeps the process alive once closed.
    this.#reader?.cancel().catch(() => {});
    this.onclose?.();
    return Promise.resolve();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        // Only the new text can hold the end of the pending line.
        const text = decoder.decode(value, { stream: true });
        let end = text.indexOf("\n");
        if (end >= 0) end += pending.length;
        pending += text;
        while (end >= 0 && !this.#closed) {
          this.#deliver(pending.slice(0, end).replace(/\r$/, ""));
          pending = pending.slice(end + 1);
          end = pending.indexOf("\n");
        }
        if (pending.length > MAX_PENDING_INPUT_BYTES) {
          this.onerror?.(new Error(`a line over ${MAX_PENDING_INPUT_BYTES} bytes`));
          return void await this.close();
        }
      }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    }
    this.#inputEnded = true;
    this.#endIfAnswered();
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = toolCallOf(line) ?? deserializeMessage(line);
    } catch (error) {
      // The SDK skips what is not JSON (a stray log line) and reports what is not JSON-RPC.
      if (!(error instanceof SyntaxError)) this.onerror?.(error as Error);
      return;
    }
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    else if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request gets no answer (the protocol says so): nothing to wait for.
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined && this.#unanswered.delete(id)) this.#endIfAnswered();
    }
    this.onmessage?.(message);
  }

  #endIfAnswered(): void {
    if (this.#inputEnded && this.#unanswered.size === 0) void this.close();
  }
}

const encoder = new TextEncoder();

/**
 * A `tools/call` request read without the SDK's schema parse (the most frequent message,
 * and the one the proxy forwards as it is; its params are checked where it is served), or
 * `undefined` for any other line, which takes the SDK's way.
 */
function toolCallOf(line: string): JSONRPCMessage | undefined {
  if (!line.includes('"tools/call"')) return undefined;
  const value = JSON.parse(line);
  if (
    typeof value !== "object" || value === null || value.jsonrpc !== "2.0" ||
    value.method !== "tools/call" ||
    !(typeof value.id === "string" || Number.isInteger(value.id)) ||
    (value.params !== undefined && (typeof value.params !== "object" || value.params === null))
  ) {
    return undefined;
  }
  return value as JSONRPCMessage;
}

/** Writes all of `bytes` to standard output, as the SDK's transport does (synchronously). */
function writeStdout(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}
