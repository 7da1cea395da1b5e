/**
 * A client-side MCP SDK `Transport` for NDJSON over any byte connection (a TCP or Unix
 * socket `Deno.Conn`), so the official SDK client can talk to `syn mcp-serve --tcp` and
 * `--socket` the same way it talks to a stdio server.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { readNdjsonLines, type RpcConnection } from "../lib/rpc/mod.ts";

export class NdjsonClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #connection: RpcConnection;
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(connection: RpcConnection) {
    this.#connection = connection;
  }

  start(): Promise<void> {
    this.#reading ??= (async () => {
      try {
        for await (const line of readNdjsonLines(this.#connection.readable)) {
          if (line.kind !== "line" || line.text.trim() === "") continue;
          try {
            this.onmessage?.(JSON.parse(line.text));
          } catch (error) {
            this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          }
        }
      } catch (error) {
        if (!this.#closed) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
      await this.close();
    })();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#connection.write(JSON.stringify(message) + "\n");
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#connection.close();
    this.onclose?.();
    await Promise.resolve();
  }
}
