/**
 * The UTF-8 size of `text` in bytes, counted without encoding it (no allocation): what
 * `new TextEncoder().encode(text).length` returns, a lone surrogate counting as the three
 * bytes of the U+FFFD it is encoded as.
 */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2; // two code units, four bytes
      i++;
    } else {
      bytes += 2; // three bytes: the rest of the BMP, and lone surrogates as U+FFFD
    }
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
