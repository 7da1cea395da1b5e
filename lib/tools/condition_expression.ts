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
  const tokens = tokenize(text);
  let index = 0;
  let depth = 0;
  const peek = () => tokens[index];
  const take = () => tokens[index++];
  const isWord = (word: string) => peek().type === "word" && peek().text === word;
  const isOp = (op: string) => peek().type === "op" && peek().text === op;
  const enter = () => {
    if (++depth > MAX_CONDITION_DEPTH) {
      fail(`nesting deeper than ${MAX_CONDITION_DEPTH}`, peek().at);
    }
  };

  function or(): Node {
    let left = and();
    while (isWord("or") || isOp("||")) {
      take();
      left = { kind: "logic", op: "or", left, right: and() };
    }
    return left;
  }
  function and(): Node {
    let left = not();
    while (isWord("and") || isOp("&&")) {
      take();
      left = { kind: "logic", op: "and", left, right: not() };
    }
    return left;
  }
  function not(): Node {
    if (isWord("not") || isOp("!")) {
      take();
      enter();
      const operand = not();
      depth--;
      return { kind: "not", operand };
    }
    return comparison();
  }
  function comparison(): Node {
    const left = primary();
    const token = peek();
    if (token.type === "op" && ["==", "!=", "<", "<=", ">", ">="].includes(token.text)) {
      take();
      return { kind: "compare", op: token.text, left, right: primary() };
    }
    if (isWord("in")) {
      take();
      return { kind: "compare", op: "in", left, right: primary() };
    }
    if (isWord("not") && tokens[index + 1]?.type === "word" && tokens[index + 1].text === "in") {
      index += 2;
      return { kind: "compare", op: "not in", left, right: primary() };
    }
    return left;
  }
  function primary(): Node {
    const token = take();
    let node: Node;
    if (token.type === "number" || token.type === "string") {
      node = { kind: "literal", value: token.value };
    } else if (token.type === "word" && Object.hasOwn(LITERAL_WORDS, token.text)) {
      node = { kind: "literal", value: LITERAL_WORDS[token.text] };
    } else if (token.type === "word" && !["and", "or", "not", "in"].includes(token.text)) {
      node = { kind: "name", name: token.text };
    } else if (token.type === "op" && token.text === "(") {
      enter();
      node = or();
      depth--;
      if (!isOp(")")) fail("expected )", peek().at);
      take();
    } else {fail(
        token.type === "end" ? "unexpected end" : `unexpected ${JSON.stringify(token.text)}`,
        token.at,
      );}
    while (isOp(".") || isOp("[")) {
      enter();
      if (take().text === ".") {
        const key = take();
        if (key.type !== "word") fail("expected a key name after .", key.at);
        node = { kind: "member", object: node, key: { kind: "literal", value: key.text } };
      } else {
        const key = or();
        if (!isOp("]")) fail("expected ]", peek().at);
        take();
        node = { kind: "member", object: node, key };
      }
    }
    if (isOp("(")) fail("calls are not allowed", peek().at);
    return node;
  }

  const tree = or();
  if (peek().type !== "end") fail(`unexpected ${JSON.stringify(peek().text)}`, peek().at);
  return (context) => truthy(evaluate(tree, context));
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
