/**
 * A cap on what clients hold open at once — in all and per peer — so that no client, and
 * no crowd of them, can make a server run out of descriptors or memory. `Deno.serve` keeps
 * no connection count a handler can see, so servers count what reaches them: in-flight
 * requests and open WebSockets.
 *
 * ```ts
 * import { ConnectionLimit } from "./connection_limit.ts";
 * const limit = new ConnectionLimit({ total: 2, perPeer: 1 });
 * const release = limit.acquire("10.0.0.7"); // a function, or undefined when over a cap
 * release?.();
 * ```
 */

/** Caps of a {@linkcode ConnectionLimit}. */
export interface ConnectionLimitOptions {
  /** Most held at once, all peers together. */
  total: number;
  /** Most held at once by one peer (its address). */
  perPeer: number;
}

/** Counts what each peer holds; refuses past either cap. */
export class ConnectionLimit {
  readonly total: number;
  readonly perPeer: number;
  #held = 0;
  #byPeer = new Map<string, number>();

  constructor(options: ConnectionLimitOptions) {
    this.total = options.total;
    this.perPeer = options.perPeer;
  }

  /** How many are held now. */
  get held(): number {
    return this.#held;
  }

  /**
   * Takes one slot for `peer`; returns its release (idempotent), or `undefined` when the
   * total or the peer's cap is reached.
   */
  acquire(peer: string): (() => void) | undefined {
    const mine = this.#byPeer.get(peer) ?? 0;
    if (this.#held >= this.total || mine >= this.perPeer) return undefined;
    this.#held++;
    this.#byPeer.set(peer, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      const left = (this.#byPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.#byPeer.set(peer, left);
      else this.#byPeer.delete(peer);
    };
  }
}
