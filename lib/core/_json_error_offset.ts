/** A JSON number (RFC 8259 §6), matched where `lastIndex` points, however long it is. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Finds the UTF-16 offset of the first JSON syntax error in a text, with a reason.
 * V8's `JSON.parse` messages carry no position for many errors, so on failure we scan
 * the text once more. Iterative (an explicit stack), so deep nesting cannot overflow.
 */
export function jsonErrorOffset(text: string): { offset: number; reason: string } | undefined {
  let index = 0;
  const length = text.length;
  // Each frame: "[" or "{", and what the container expects next.
  const stack: {
    kind: "[" | "{";
    expect: "value-or-end" | "comma-or-end" | "value" | "key" | "key-or-end";
  }[] = [];

  const skipSpace = () => {
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) index++;
      else break;
    }
  };
  const fail = (reason: string) => ({ offset: index, reason });
  const describe = () => {
    if (index >= length) return "unexpected end of input";
    const code = text.codePointAt(index)!;
    // Printable ASCII as itself; anything else (a byte order mark, a no-break space,
    // smart quotes pasted from a document) by its code point, so the reader can see it.
    const shown = code > 0x20 && code < 0x7f
      ? JSON.stringify(String.fromCodePoint(code))
      : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    return `unexpected character ${shown}`;
  };

  const scanString = (): { offset: number; reason: string } | undefined => {
    index++; // opening quote
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === 0x22) {
        index++;
        return undefined;
      }
      if (code < 0x20) return fail("control character in string");
      if (code === 0x5c) {
        const next = text[index + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
            return fail("bad unicode escape in string");
          }
          index += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          index += 2;
        } else {
          return fail("bad escape in string");
        }
      } else {
        index++;
      }
    }
    return fail("unterminated string");
  };

  const scanScalar = (): { offset: number; reason: string } | undefined => {
    const rest = text.slice(index, index + 5);
    for (const word of ["true", "false", "null"]) {
      if (rest.startsWith(word)) {
        index += word.length;
        return undefined;
      }
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(text);
    if (number) {
      index += number[0].length;
      return undefined;
    }
    return fail(describe());
  };

  // Parses one value start; containers push a frame.
  const scanValue = (): { offset: number; reason: string } | undefined => {
    skipSpace();
    const char = text[index];
    if (char === "{") {
      index++;
      stack.push({ kind: "{", expect: "key-or-end" });
      return undefined;
    }
    if (char === "[") {
      index++;
      stack.push({ kind: "[", expect: "value-or-end" });
      return undefined;
    }
    if (char === '"') return scanString();
    return scanScalar();
  };

  let problem = scanValue();
  if (problem) return problem;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    skipSpace();
    const char = text[index];
    if (frame.expect === "value-or-end" && char === "]") {
      index++;
      stack.pop();
      continue;
    }
    if (frame.expect === "key-or-end" && char === "}") {
      index++;
      stack.pop();
      continue;
    }
    if (frame.expect === "comma-or-end") {
      if (char === ",") {
        index++;
        frame.expect = frame.kind === "[" ? "value" : "key";
        continue;
      }
      if (char === (frame.kind === "[" ? "]" : "}")) {
        index++;
        stack.pop();
        continue;
      }
      return fail(
        index >= length
          ? "unexpected end of input"
          : `expected ',' or '${frame.kind === "[" ? "]" : "}"}'`,
      );
    }
    if (frame.expect === "key" || frame.expect === "key-or-end") {
      if (char !== '"') {
        return fail(
          index >= length ? "unexpected end of input" : "expected a property name in double quotes",
        );
      }
      problem = scanString();
      if (problem) return problem;
      skipSpace();
      if (text[index] !== ":") return fail("expected ':' after property name");
      index++;
      frame.expect = "comma-or-end";
      problem = scanValue();
      if (problem) return problem;
      continue;
    }
    // "value" or "value-or-end" in an array
    frame.expect = "comma-or-end";
    problem = scanValue();
    if (problem) return problem;
  }
  skipSpace();
  if (index < length) return fail("unexpected data after the JSON value");
  return undefined;
}
