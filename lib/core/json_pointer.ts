/** RFC 6901 JSON Pointer helpers. The root pointer is `""`. */

/** RFC 6901 §3: `~` becomes `~0` and `/` becomes `~1`, in that order. */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

export function unescapePointerToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Builds a pointer from reference tokens: `["a", 0]` → `"/a/0"`. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let pointer = "";
  for (const token of tokens) pointer += "/" + escapePointerToken(token);
  return pointer;
}

/** Splits a pointer into unescaped reference tokens; throws SyntaxError on a bad pointer. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new SyntaxError(`JSON Pointer must be empty or start with "/": ${pointer}`);
  }
  const tokens = pointer.slice(1).split("/");
  for (const token of tokens) {
    if (/~[^01]|~$/.test(token)) {
      throw new SyntaxError(`JSON Pointer has an invalid escape: ${pointer}`);
    }
  }
  return tokens.map(unescapePointerToken);
}

/** Array index per RFC 6901 §4: digits without leading zeros. */
export function isArrayIndexToken(token: string): boolean {
  return token === "0" || /^[1-9][0-9]*$/.test(token);
}

/** Resolves a pointer; `{ found: false }` when any step is missing. */
export function resolvePointer(
  document: unknown,
  pointer: string,
): { found: true; value: unknown } | { found: false } {
  let current: unknown = document;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(current)) {
      if (!isArrayIndexToken(token)) return { found: false };
      const index = Number(token);
      if (index >= current.length) return { found: false };
      current = current[index];
    } else if (current !== null && typeof current === "object") {
      if (!Object.hasOwn(current, token)) return { found: false };
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
