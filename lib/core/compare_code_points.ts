/**
 * Compares two strings by Unicode code point, as Python's `sorted` does. JavaScript's `<`
 * compares UTF-16 code units, which puts U+10000…U+10FFFF (surrogate pairs) before
 * U+E000…U+FFFF; the MCP spec's reference sorts patches and validation errors the Python
 * way, so both use this order.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    // Below the surrogate range a code unit is its own code point, and it is smaller than
    // whatever code point the other string has here, even a pair starting one unit earlier.
    if (x < 0xd800 || y < 0xd800) return x - y;
    return compareFrom(a, b, index);
  }
  return a.length - b.length;
}

/** Both strings differ at `index` with code units at or above U+D800. */
function compareFrom(a: string, b: string, index: number): number {
  let start = index;
  // The shared unit before may be a high surrogate that pairs with one side's unit here.
  const before = index > 0 ? a.charCodeAt(index - 1) : 0;
  if (before >= 0xd800 && before <= 0xdbff) start = index - 1;
  let x = a.codePointAt(start) as number;
  let y = b.codePointAt(start) as number;
  if (x === y) {
    // Both were the same lone high surrogate; the difference starts at `index`.
    x = a.codePointAt(index) as number;
    y = b.codePointAt(index) as number;
  }
  return x - y;
}

/**
 * Orders issues by path, then message (or any second key), both by code point: the one
 * order of every error list syn prints, as the Python reference sorts them.
 */
export function compareIssues<T extends { path: string }>(
  second: (issue: T) => string,
): (a: T, b: T) => number {
  return (a, b) => compareCodePoints(a.path, b.path) || compareCodePoints(second(a), second(b));
}
