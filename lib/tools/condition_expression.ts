import { SynError } from "../core/mod.ts";

/** Longest condition text, and deepest nesting, accepted. */
export const MAX_CONDITION_CHARS = 1000;
export const MAX_CONDITION_DEPTH = 50;

type Node =
  | { kind: "literal"; value: unknown }
  | { kind: "name"; name: string }
  | { kind: "member"; object: Node; key: Node }
  | { kind: "not"; operand: Node }
  | { kind: "logic"; op: "and" | "or"; left: Node; right: Node }
  | { kind: "compare"; op: string; left: Node; right: Node };

interface Token {
  type: "number" | "string" | "word" | "op" | "end";
  text: string;
  value?: unknown;
  at: number;
}

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", "."];

function fail(message: string, at: number): never {
  throw new SynError("condition_invalid", `${message} at position ${at + 1}`, { position: at });
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    const number = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      tokens.push({ type: "number", text: number[0], value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    if (char === "'" || char === '"') {
      let value = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== char; j++) {
        if (text[j] === "\\" && j + 1 < text.length) {
          const next = text[++j];
          value += next === "n" ? "\n" : next === "t" ? "\t" : next;
        } else value += text[j];
      }
      if (j >= text.length) fail("unterminated string", i);
      tokens.push({ type: "string", text: text.slice(i, j + 1), value, at: i });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (word) {
      tokens.push({ type: "word", text: word[0], at: i });
      i += word[0].length;
      continue;
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    if (!op) fail(`unexpected character ${JSON.stringify(char)}`, i);
    tokens.push({ type: "op", text: op, at: i });
    i += op.length;
  }
  tokens.push({ type: "end", text: "", at: text.length });
  return tokens;
}

const LITERAL_WORDS: Record<string, unknown> = {
  true: true,
  True: true,
  false: false,
  False: false,
  null: null,
  None: null,
};

/**
 * Parses a step condition (synthesis spec): comparisons (`== != < <= > >= in`, `not in`),
 * `and`/`or`/`not` (also `&&`/`||`/`!`), parentheses, literals (numbers, quoted strings,
 * true/false/null and Python's True/False/None) and names with key access
 * (`step1.output["status"]`, `x['a'][0]`). No calls, no arithmetic, no attributes of
 * values — a name only ever reads keys of the data it is given. Throws `SynError`
 * `condition_invalid` naming the position.
 */
export function parseCondition(text: string): (context: Record<string, unknown>) => boolean {
  if (typeof text !== "string") {
    throw new SynError("condition_invalid", "A condition must be a string");
  }
  if (text.length > MAX_CONDITION_CHARS) {
    fail(`condition longer than ${MAX_CONDITION_CHARS} characters`, MAX_CONDITION_CHARS);
  }
  const tree = new ConditionParser(tokenize(text)).parse();
  return (context) => truthy(evaluate(tree, context));
}

const COMPARISON_OPERATORS = ["==", "!=", "<", "<=", ">", ">="];
const KEYWORDS = ["and", "or", "not", "in"];

/** Recursive descent over the tokens, loosest binding first: or, and, not, comparison. */
class ConditionParser {
  #index = 0;
  #depth = 0;

  constructor(readonly tokens: readonly Token[]) {}

  /** The whole condition; anything left over is an error. */
  parse(): Node {
    const tree = this.#or();
    const rest = this.#peek();
    if (rest.type !== "end") fail(`unexpected ${JSON.stringify(rest.text)}`, rest.at);
    return tree;
  }

  #or(): Node {
    let left = this.#and();
    while (this.#isWord("or") || this.#isOp("||")) {
      this.#take();
      left = { kind: "logic", op: "or", left, right: this.#and() };
    }
    return left;
  }

  #and(): Node {
    let left = this.#not();
    while (this.#isWord("and") || this.#isOp("&&")) {
      this.#take();
      left = { kind: "logic", op: "and", left, right: this.#not() };
    }
    return left;
  }

  #not(): Node {
    if (this.#isWord("not") || this.#isOp("!")) {
      this.#take();
      this.#enter();
      const operand = this.#not();
      this.#depth--;
      return { kind: "not", operand };
    }
    return this.#comparison();
  }

  #comparison(): Node {
    const left = this.#primary();
    const token = this.#peek();
    if (token.type === "op" && COMPARISON_OPERATORS.includes(token.text)) {
      this.#take();
      return { kind: "compare", op: token.text, left, right: this.#primary() };
    }
    if (this.#isWord("in")) {
      this.#take();
      return { kind: "compare", op: "in", left, right: this.#primary() };
    }
    const next = this.tokens[this.#index + 1];
    if (this.#isWord("not") && next?.type === "word" && next.text === "in") {
      this.#index += 2;
      return { kind: "compare", op: "not in", left, right: this.#primary() };
    }
    return left;
  }

  /** A literal, a name or a parenthesized condition, then any key accesses on it. */
  #primary(): Node {
    const node = this.#operand();
    const accessed = this.#keyAccesses(node);
    if (this.#isOp("(")) fail("calls are not allowed", this.#peek().at);
    return accessed;
  }

  #operand(): Node {
    const token = this.#take();
    if (token.type === "number" || token.type === "string") {
      return { kind: "literal", value: token.value };
    }
    if (token.type === "word" && Object.hasOwn(LITERAL_WORDS, token.text)) {
      return { kind: "literal", value: LITERAL_WORDS[token.text] };
    }
    if (token.type === "word" && !KEYWORDS.includes(token.text)) {
      return { kind: "name", name: token.text };
    }
    if (token.type === "op" && token.text === "(") {
      this.#enter();
      const node = this.#or();
      this.#depth--;
      this.#expectOp(")");
      return node;
    }
    fail(
      token.type === "end" ? "unexpected end" : `unexpected ${JSON.stringify(token.text)}`,
      token.at,
    );
  }

  /**
   * `.key` and `[expression]` after an operand. Each access counts towards the depth
   * limit for the rest of the condition, so a long chain is refused like deep nesting.
   */
  #keyAccesses(object: Node): Node {
    let node = object;
    while (this.#isOp(".") || this.#isOp("[")) {
      this.#enter();
      if (this.#take().text === ".") {
        const key = this.#take();
        if (key.type !== "word") fail("expected a key name after .", key.at);
        node = { kind: "member", object: node, key: { kind: "literal", value: key.text } };
      } else {
        const key = this.#or();
        this.#expectOp("]");
        node = { kind: "member", object: node, key };
      }
    }
    return node;
  }

  #peek(): Token {
    return this.tokens[this.#index];
  }

  #take(): Token {
    return this.tokens[this.#index++];
  }

  #isWord(word: string): boolean {
    return this.#peek().type === "word" && this.#peek().text === word;
  }

  #isOp(op: string): boolean {
    return this.#peek().type === "op" && this.#peek().text === op;
  }

  #expectOp(op: string): void {
    if (!this.#isOp(op)) fail(`expected ${op}`, this.#peek().at);
    this.#take();
  }

  #enter(): void {
    if (++this.#depth > MAX_CONDITION_DEPTH) {
      fail(`nesting deeper than ${MAX_CONDITION_DEPTH}`, this.#peek().at);
    }
  }
}

/** Only own keys of plain data: never `__proto__`, `constructor` or a prototype's members. */
function read(container: unknown, key: unknown): unknown {
  if (container === null || typeof container !== "object") return undefined;
  if (Array.isArray(container)) {
    return typeof key === "number" && Number.isInteger(key) && key >= 0 && key < container.length
      ? container[key]
      : undefined;
  }
  if (typeof key !== "string" && typeof key !== "number") return undefined;
  const name = String(key);
  return Object.hasOwn(container, name) ? (container as Record<string, unknown>)[name] : undefined;
}

function evaluate(node: Node, context: Record<string, unknown>): unknown {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "name":
      return read(context, node.name);
    case "member":
      return read(evaluate(node.object, context), evaluate(node.key, context));
    case "not":
      return !truthy(evaluate(node.operand, context));
    case "logic": {
      const left = truthy(evaluate(node.left, context));
      if (node.op === "and") return left && truthy(evaluate(node.right, context));
      return left || truthy(evaluate(node.right, context));
    }
    case "compare":
      return compare(node.op, evaluate(node.left, context), evaluate(node.right, context));
  }
}

function compare(op: string, left: unknown, right: unknown): boolean {
  const l = left === undefined ? null : left;
  const r = right === undefined ? null : right;
  switch (op) {
    case "==":
      return equal(l, r);
    case "!=":
      return !equal(l, r);
    case "in":
    case "not in": {
      const found = typeof r === "string"
        ? typeof l === "string" && r.includes(l)
        : Array.isArray(r)
        ? r.some((item) => equal(item, l))
        : r !== null && typeof r === "object" && typeof l === "string" && Object.hasOwn(r, l);
      return op === "in" ? found : !found;
    }
  }
  // Ordering only between two numbers or two strings; anything else is false.
  if (
    !((typeof l === "number" && typeof r === "number") ||
      (typeof l === "string" && typeof r === "string"))
  ) {
    return false;
  }
  return op === "<" ? l < r : op === "<=" ? l <= r : op === ">" ? l > r : l >= r;
}

function equal(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) {
    return false;
  }
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Python truthiness: empty strings, lists and objects, 0 and null are false. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}
