/**
 * Splits a model's streamed text into what the user sees and the marker blocks that are
 * for the runtime only (Spectator contracts §2, §3): `<<<NOTES_JSON>>> … <<<END_NOTES_JSON>>>`
 * and `<<<TOOL_CALLS_JSON>>> … <<<END_TOOL_CALLS_JSON>>>`. A marker may arrive split
 * across any number of chunks: text that could still be the start of a marker is held
 * back until the next chunk decides, so no part of a block ever reaches the user.
 */

/** The two block kinds and their markers, exactly as specified. */
export const MARKERS = Object.freeze({
  notes: { begin: "<<<NOTES_JSON>>>", end: "<<<END_NOTES_JSON>>>" },
  tool_calls: { begin: "<<<TOOL_CALLS_JSON>>>", end: "<<<END_TOOL_CALLS_JSON>>>" },
});

export type MarkerKind = keyof typeof MARKERS;

/** A block's raw payload (between its markers); `closed: false` when the stream ended inside it. */
export interface MarkerBlock {
  kind: MarkerKind;
  payload: string;
  closed: boolean;
}

/** What one `push` (or `end`) released. */
export interface MarkerStreamOutput {
  /** Visible text, safe to show now. */
  visible: string;
  /** Blocks completed by this input. */
  blocks: MarkerBlock[];
}

/** A block's payload may not grow past this; the rest is dropped and the block marked. */
export const MAX_BLOCK_CHARS = 256 * 1024;

const KINDS = Object.keys(MARKERS) as MarkerKind[];

/**
 * Incremental splitter. Feed chunks with `push`, then call `end` once: the concatenation
 * of every `visible` is the text without its blocks, whatever the chunking.
 */
export class MarkerStream {
  #pending = "";
  #inside: MarkerKind | undefined;
  #payload = "";
  #overflow = false;

  push(chunk: string): MarkerStreamOutput {
    this.#pending += chunk;
    return this.#drain(false);
  }

  /** Flushes what was held back; an unterminated block is returned with `closed: false`. */
  end(): MarkerStreamOutput {
    const output = this.#drain(true);
    if (this.#inside) {
      output.blocks.push({
        kind: this.#inside,
        payload: this.#payload + this.#pending,
        closed: false,
      });
      this.#pending = "";
      this.#inside = undefined;
      this.#payload = "";
    }
    return output;
  }

  /** True when the last block overflowed `MAX_BLOCK_CHARS`. */
  get overflowed(): boolean {
    return this.#overflow;
  }

  #drain(final: boolean): MarkerStreamOutput {
    let visible = "";
    const blocks: MarkerBlock[] = [];
    while (this.#pending.length) {
      if (this.#inside) {
        const end = MARKERS[this.#inside].end;
        const at = this.#pending.indexOf(end);
        if (at >= 0) {
          this.#appendPayload(this.#pending.slice(0, at));
          blocks.push({ kind: this.#inside, payload: this.#payload, closed: true });
          this.#pending = this.#pending.slice(at + end.length);
          this.#inside = undefined;
          this.#payload = "";
          continue;
        }
        const keep = final ? 0 : partialSuffix(this.#pending, [end]);
        this.#appendPayload(this.#pending.slice(0, this.#pending.length - keep));
        this.#pending = this.#pending.slice(this.#pending.length - keep);
        break;
      }
      const next = firstBegin(this.#pending);
      if (next) {
        visible += this.#pending.slice(0, next.at);
        this.#pending = this.#pending.slice(next.at + MARKERS[next.kind].begin.length);
        this.#inside = next.kind;
        this.#overflow = false;
        continue;
      }
      const keep = final
        ? 0
        : partialSuffix(this.#pending, KINDS.map((kind) => MARKERS[kind].begin));
      visible += this.#pending.slice(0, this.#pending.length - keep);
      this.#pending = this.#pending.slice(this.#pending.length - keep);
      break;
    }
    return { visible, blocks };
  }

  #appendPayload(text: string): void {
    const room = MAX_BLOCK_CHARS - this.#payload.length;
    if (text.length > room) this.#overflow = true;
    this.#payload += text.slice(0, Math.max(0, room));
  }
}

function firstBegin(text: string): { kind: MarkerKind; at: number } | undefined {
  let best: { kind: MarkerKind; at: number } | undefined;
  for (const kind of KINDS) {
    const at = text.indexOf(MARKERS[kind].begin);
    if (at >= 0 && (!best || at < best.at)) best = { kind, at };
  }
  return best;
}

/** Length of the longest suffix of `text` that is a proper prefix of one of `markers`. */
function partialSuffix(text: string, markers: readonly string[]): number {
  let longest = 0;
  for (const marker of markers) {
    const max = Math.min(marker.length - 1, text.length);
    for (let length = max; length > longest; length--) {
      if (text.endsWith(marker.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

/** The whole text at once: visible text and blocks (a convenience over `MarkerStream`). */
export function splitMarkers(text: string): { visible: string; blocks: MarkerBlock[] } {
  const stream = new MarkerStream();
  const first = stream.push(text);
  const last = stream.end();
  return { visible: first.visible + last.visible, blocks: [...first.blocks, ...last.blocks] };
}
