import type {
  ClientCapabilities,
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
} from "@modelcontextprotocol/server";
import { readStreamCapped } from "../core/mod.ts";

/** Most bytes of an HTTP `initialize` read here (the endpoint's own cap, 1 MiB, is the same). */
const MAX_INITIALIZE_BYTES = 1024 * 1024;

/**
 * A server transport whose first message is read before a server is attached: the
 * client's `initialize` says what it can do (sampling, elicitation, roots), and the
 * upstream must be connected declaring the same before the server can answer. Once a
 * server connects, what was read is handed to it, in order, and the rest flows through.
 */
export class HeldTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #held: [JSONRPCMessage, MessageExtraInfo | undefined][] = [];
  #closed = false;
  #attached = false;

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Starts the inner transport; resolves to its first message, or `undefined` if it closed first. */
  firstMessage(): Promise<JSONRPCMessage | undefined> {
    const { promise, resolve, reject } = Promise.withResolvers<JSONRPCMessage | undefined>();
    this.#inner.onmessage = (message, extra) => {
      if (this.#attached) return this.onmessage?.(message, extra);
      this.#held.push([message, extra]);
      resolve(message);
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#closed = true;
      resolve(undefined);
      this.onclose?.();
    };
    this.#inner.start().catch(reject);
    return promise;
  }

  /** The inner transport is running already: hands what was read to the server. */
  start(): Promise<void> {
    this.#attached = true;
    queueMicrotask(() => {
      for (const [message, extra] of this.#held.splice(0)) this.onmessage?.(message, extra);
      if (this.#closed) this.onclose?.();
    });
    return Promise.resolve();
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
}

/** What an `initialize` request declares the client can do (`{}` for anything else). */
export function declaredCapabilities(message: unknown): ClientCapabilities {
  if (typeof message !== "object" || message === null) return {};
  const { method, params } = message as { method?: unknown; params?: { capabilities?: unknown } };
  if (method !== "initialize") return {};
  const capabilities = params?.capabilities;
  return typeof capabilities === "object" && capabilities !== null && !Array.isArray(capabilities)
    ? capabilities as ClientCapabilities
    : {};
}

/** What the client declares in the `initialize` an HTTP request carries (`{}` if none). */
export async function declaredInRequest(request: Request | undefined): Promise<ClientCapabilities> {
  if (!request || request.method !== "POST" || request.bodyUsed) return {};
  try {
    const bytes = await readStreamCapped(
      request.clone().body ?? new ReadableStream(),
      {
        maxBytes: MAX_INITIALIZE_BYTES,
        tooLarge: () => new RangeError("initialize request too large"),
      },
    );
    const body = JSON.parse(new TextDecoder().decode(bytes));
    return declaredCapabilities(Array.isArray(body) ? body[0] : body);
  } catch {
    return {};
  }
}
