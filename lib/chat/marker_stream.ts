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
  blocks: readonly MarkerBlock[];
}

/** A block's payload may not grow past this; the rest is dropped and the block marked. */
export const MAX_BLOCK_CHARS = 256 * 1024;

const KINDS = Object.keys(MARKERS) as MarkerKind[];
/** What a chunk releases when it completes no block: shared, never changed. */
const NO_BLOCKS: readonly MarkerBlock[] = Object.freeze([]);
/** Every marker begins with this; text without it can hold no marker and no start of one. */
const MARKER_START = "<";
/** The proper prefixes of the begin markers, and of each end marker, longest first. */
const BEGIN_PREFIXES = properPrefixes(KINDS.map((kind) => MARKERS[kind].begin));
const END_PREFIXES = Object.fromEntries(
  KINDS.map((kind) => [kind, properPrefixes([MARKERS[kind].end])]),
) as Record<MarkerKind, readonly string[]>;

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
    const blocks: MarkerBlock[] = [];
    const visible = this.take(chunk, blocks);
    return { visible, blocks: blocks.length ? blocks : NO_BLOCKS };
  }

  /**
   * `push` for a caller that keeps every block: returns the visible text and appends the
   * blocks this chunk completed to `blocks`, with no output object per chunk.
   */
  take(chunk: string, blocks: MarkerBlock[]): string {
    // The common case, plain text with nothing held back: all of it is visible at once.
    if (!this.#inside && !this.#pending && !chunk.includes(MARKER_START)) return chunk;
    this.#pending += chunk;
    return this.#drain(false, blocks);
  }

  /** Flushes what was held back; an unterminated block is returned with `closed: false`. */
  end(): MarkerStreamOutput {
    const blocks: MarkerBlock[] = [];
    const visible = this.#drain(true, blocks);
    if (this.#inside) {
      blocks.push({ kind: this.#inside, payload: this.#payload + this.#pending, closed: false });
      this.#pending = "";
      this.#inside = undefined;
      this.#payload = "";
    }
    return { visible, blocks: blocks.length ? blocks : NO_BLOCKS };
  }

  /** True when the last block overflowed `MAX_BLOCK_CHARS`. */
  get overflowed(): boolean {
    return this.#overflow;
  }

  /** Releases what `#pending` allows: returns the visible text, appends completed blocks. */
  #drain(final: boolean, blocks: MarkerBlock[]): string {
    let visible = "";
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
        const keep = final ? 0 : partialSuffix(this.#pending, END_PREFIXES[this.#inside]);
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
      const keep = final ? 0 : partialSuffix(this.#pending, BEGIN_PREFIXES);
      visible += this.#pending.slice(0, this.#pending.length - keep);
      this.#pending = this.#pending.slice(this.#pending.length - keep);
      break;
    }
    return visible;
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

/** Every proper prefix of `markers`, longest first (what a chunk may end with). */
function properPrefixes(markers: readonly string[]): readonly string[] {
  const prefixes = new Set<string>();
  for (const marker of markers) {
    for (let length = 1; length < marker.length; length++) prefixes.add(marker.slice(0, length));
  }
  return Object.freeze([...prefixes].sort((a, b) => b.length - a.length));
}

/** Length of the longest suffix of `text` among `prefixes` (longest first), 0 for none. */
function partialSuffix(text: string, prefixes: readonly string[]): number {
  if (!text.includes(MARKER_START)) return 0;
  for (const prefix of prefixes) if (text.endsWith(prefix)) return prefix.length;
  return 0;
}

/** The whole text at once: visible text and blocks (a convenience over `MarkerStream`). */
export function splitMarkers(text: string): { visible: string; blocks: MarkerBlock[] } {
  const stream = new MarkerStream();
  const first = stream.push(text);
  const last = stream.end();
  return { visible: first.visible + last.visible, blocks: [...first.blocks, ...last.blocks] };
}
