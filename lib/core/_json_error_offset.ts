/** A JSON number (RFC 8259 §6), matched where `lastIndex` points, however long it is. */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Where a text stops being JSON, and why. */
type JsonProblem = { offset: number; reason: string };

/** An open array or object, and what it expects next. */
interface Frame {
  kind: "[" | "{";
  expect: "value-or-end" | "comma-or-end" | "value" | "key" | "key-or-end";
}

/**
 * Finds the UTF-16 offset of the first JSON syntax error in a text, with a reason.
 * V8's `JSON.parse` messages carry no position for many errors (`[1,]`, `{"a":tru}`, a
 * byte order mark or a smart quote all read `Unexpected token …, "…" is not valid
 * JSON`), so on failure we scan the text once more. Iterative (an explicit stack), so
 * deep nesting cannot overflow.
 */
export function jsonErrorOffset(text: string): JsonProblem | undefined {
  return new JsonScanner(text).scan();
}

/** One pass over a text: `index` moves forward, open containers sit on `stack`. */
class JsonScanner {
  #index = 0;
  readonly #stack: Frame[] = [];

  constructor(readonly text: string) {}

  scan(): JsonProblem | undefined {
    const problem = this.#scanValue() ?? this.#scanContainers();
    if (problem) return problem;
    this.#skipSpace();
    if (this.#index < this.text.length) return this.#fail("unexpected data after the JSON value");
    return undefined;
  }

  /** Steps through open containers until none is left or a problem is found. */
  #scanContainers(): JsonProblem | undefined {
    while (this.#stack.length > 0) {
      const frame = this.#stack[this.#stack.length - 1];
      this.#skipSpace();
      const problem = frame.expect === "comma-or-end"
        ? this.#scanCommaOrEnd(frame)
        : frame.kind === "{"
        ? this.#scanMember(frame)
        : this.#scanElement(frame);
      if (problem) return problem;
    }
    return undefined;
  }

  /** After a value in a container: `,` for another, or the closing bracket. */
  #scanCommaOrEnd(frame: Frame): JsonProblem | undefined {
    const char = this.text[this.#index];
    const closing = frame.kind === "[" ? "]" : "}";
    if (char === ",") {
      this.#index++;
      frame.expect = frame.kind === "[" ? "value" : "key";
      return undefined;
    }
    if (char === closing) {
      this.#index++;
      this.#stack.pop();
      return undefined;
    }
    return this.#fail(this.#atEnd() ? "unexpected end of input" : `expected ',' or '${closing}'`);
  }

  /** An object's `"key": value`, or its end where that may come. */
  #scanMember(frame: Frame): JsonProblem | undefined {
    const char = this.text[this.#index];
    if (frame.expect === "key-or-end" && char === "}") {
      this.#index++;
      this.#stack.pop();
      return undefined;
    }
    if (char !== '"') {
      return this.#fail(
        this.#atEnd() ? "unexpected end of input" : "expected a property name in double quotes",
      );
    }
    const problem = this.#scanString();
    if (problem) return problem;
    this.#skipSpace();
    if (this.text[this.#index] !== ":") return this.#fail("expected ':' after property name");
    this.#index++;
    frame.expect = "comma-or-end";
    return this.#scanValue();
  }

  /** An array's next value, or its end where that may come. */
  #scanElement(frame: Frame): JsonProblem | undefined {
    if (frame.expect === "value-or-end" && this.text[this.#index] === "]") {
      this.#index++;
      this.#stack.pop();
      return undefined;
    }
    frame.expect = "comma-or-end";
    return this.#scanValue();
  }

  /** Parses one value start; containers push a frame. */
  #scanValue(): JsonProblem | undefined {
    this.#skipSpace();
    const char = this.text[this.#index];
    if (char === "{" || char === "[") {
      this.#index++;
      this.#stack.push(
        char === "{" ? { kind: "{", expect: "key-or-end" } : { kind: "[", expect: "value-or-end" },
      );
      return undefined;
    }
    if (char === '"') return this.#scanString();
    return this.#scanScalar();
  }

  #scanString(): JsonProblem | undefined {
    const text = this.text;
    this.#index++; // opening quote
    while (this.#index < text.length) {
      const code = text.charCodeAt(this.#index);
      if (code === 0x22) {
        this.#index++;
        return undefined;
      }
      if (code < 0x20) return this.#fail("control character in string");
      if (code === 0x5c) {
        const problem = this.#scanEscape();
        if (problem) return problem;
      } else {
        this.#index++;
      }
    }
    return this.#fail("unterminated string");
  }

  /** A backslash escape inside a string (RFC 8259 §7). */
  #scanEscape(): JsonProblem | undefined {
    const next = this.text[this.#index + 1];
    if (next === "u") {
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.#index + 2, this.#index + 6))) {
        return this.#fail("bad unicode escape in string");
      }
      this.#index += 6;
      return undefined;
    }
    if (next !== undefined && '"\\/bfnrt'.includes(next)) {
      this.#index += 2;
      return undefined;
    }
    return this.#fail("bad escape in string");
  }

  #scanScalar(): JsonProblem | undefined {
    const rest = this.text.slice(this.#index, this.#index + 5);
    for (const word of ["true", "false", "null"]) {
      if (rest.startsWith(word)) {
        this.#index += word.length;
        return undefined;
      }
    }
    NUMBER.lastIndex = this.#index;
    const number = NUMBER.exec(this.text);
    if (number) {
      this.#index += number[0].length;
      return undefined;
    }
    return this.#fail(this.#describe());
  }

  #skipSpace(): void {
    const text = this.text;
    while (this.#index < text.length) {
      const code = text.charCodeAt(this.#index);
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) this.#index++;
      else break;
    }
  }

  #atEnd(): boolean {
    return this.#index >= this.text.length;
  }

  #fail(reason: string): JsonProblem {
    return { offset: this.#index, reason };
  }

  /** What stands at `index`, as the reason of an unexpected character. */
  #describe(): string {
    if (this.#atEnd()) return "unexpected end of input";
    const code = this.text.codePointAt(this.#index)!;
    // Printable ASCII as itself; anything else (a byte order mark, a no-break space,
    // smart quotes pasted from a document) by its code point, so the reader can see it.
    const shown = code > 0x20 && code < 0x7f
      ? JSON.stringify(String.fromCodePoint(code))
      : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    return `unexpected character ${shown}`;
  }
}
