/** `TextDecoder`'s options for a chunk of a longer text: made once, not per chunk. */
const STREAM = { stream: true } as const;

/**
 * Decodes a chunk by itself, shared by every decoder (a whole decode keeps no state); it
 * keeps a BOM, which past the start of a text is a character like another.
 */
let whole: TextDecoder | undefined;

/**
 * UTF-8 text of a body that arrives in chunks: what Deno's `TextDecoder` gives in stream
 * mode, chunk for chunk, without its cost per call. Deno 2.9 converts the `{ stream }`
 * options afresh on every call, about 200 bytes of garbage, and a token stream is
 * thousands of chunks a second. A chunk that ends on an ASCII byte while nothing is held
 * decodes whole to the same text, so only the others go through stream mode.
 *
 * Deno's stream mode reads chunks of ASCII alone and starts its UTF-8 decoder at the first
 * chunk with another byte, where that decoder drops a BOM as at the start of a text; this
 * does the same, so the two never differ.
 */
export class Utf8ChunkDecoder {
  /** The stream-mode decoder, made for the first chunk that needs it. */
  #stream?: TextDecoder;
  /** Whether a chunk with a non-ASCII byte came (`#stream` has started its decoder). */
  #started = false;
  /** Whether `#stream` may hold the start of a character. */
  #holding = false;

  /** The text of the next chunk (with what an earlier one left unfinished). */
  decode(chunk: Uint8Array): string {
    if (chunk.length === 0) return "";
    const last = chunk[chunk.length - 1];
    if (this.#started ? !this.#holding && last < 0x80 : isAscii(chunk)) {
      return (whole ??= new TextDecoder("utf-8", { ignoreBOM: true })).decode(chunk);
    }
    this.#started = true;
    // A chunk ending on an ASCII byte leaves nothing held: any character it began is ended.
    this.#holding = last >= 0x80;
    return (this.#stream ??= new TextDecoder()).decode(chunk, STREAM);
  }

  /** The end of the text: what is still held becomes U+FFFD. Ready for a new text after. */
  end(): string {
    this.#started = false;
    this.#holding = false;
    return this.#stream?.decode() ?? "";
  }
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0x80) return false;
  return true;
}
