import process from "node:process";
import { PassThrough, type Readable, type Writable } from "node:stream";
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
  Transport,
} from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

/**
 * The SDK's stdio server transport, except at end of input. The SDK's closes the moment
 * standard input ends, and the requests still in flight are aborted unanswered; a client
 * that writes its requests and closes its end, as a shell pipe does, would lose them.
 * Here the end of input reaches the SDK's transport only once every request read has been
 * answered (or cancelled by the client): then it closes as before. Framing, the buffer
 * cap and the handling of standard output stay the SDK's.
 */
export class DrainingStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #stdin: Readable;
  /** What the SDK's transport reads: standard input, held open while requests are pending. */
  readonly #input = new PassThrough();
  readonly #inner: StdioServerTransport;
  /** Requests read and not yet answered. */
  readonly #unanswered = new Set<RequestId>();
  #inputEnded = false;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    this.#stdin = stdin;
    this.#inner = new StdioServerTransport(this.#input, stdout);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message && "id" in message) this.#unanswered.add(message.id);
      else if ("method" in message && message.method === "notifications/cancelled") {
        // A cancelled request gets no answer (the protocol says so): nothing to wait for.
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined && this.#unanswered.delete(id)) this.#endIfAnswered();
      }
      this.onmessage?.(message);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#detach();
      this.onclose?.();
    };
    await this.#inner.start();
    if (this.#stdin.readableEnded || this.#stdin.destroyed) {
      this.#inputEnd();
      return;
    }
    this.#stdin.on("end", this.#inputEnd);
    this.#stdin.on("close", this.#inputEnd);
    this.#stdin.on("error", this.#inputError);
    this.#stdin.pipe(this.#input, { end: false });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const answers = !("method" in message) && "id" in message ? message.id : undefined;
    try {
      await this.#inner.send(message);
    } finally {
      if (answers !== undefined && this.#unanswered.delete(answers)) this.#endIfAnswered();
    }
  }

  close(): Promise<void> {
    this.#detach();
    return this.#inner.close();
  }

  readonly #inputEnd = () => {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    this.#endIfAnswered();
  };

  readonly #inputError = (error: Error) => {
    this.onerror?.(error);
    this.#inputEnd();
  };

  #endIfAnswered(): void {
    if (this.#inputEnded && this.#unanswered.size === 0 && !this.#input.writableEnded) {
      this.#detach();
      this.#input.end();
    }
  }

  /** Stops reading standard input, so nothing keeps the process alive once closed. */
  #detach(): void {
    this.#stdin.off("end", this.#inputEnd);
    this.#stdin.off("close", this.#inputEnd);
    this.#stdin.off("error", this.#inputError);
    this.#stdin.unpipe(this.#input);
    this.#stdin.pause();
  }
}
