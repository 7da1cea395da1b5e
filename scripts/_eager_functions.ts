import { SynError } from "../lib/core/mod.ts";

/**
 * ajv's standalone code with every top-level `function validateN(…){…}` declaration
 * rewritten as `var validateN = (function validateN(…){…});`, so that V8 compiles it when
 * the module is compiled. V8 compiles a function lazily, at its first call, unless it is a
 * parenthesized function expression; Deno stores a module's code cache right after
 * compiling it, so a lazily compiled validator is parsed and compiled again in every
 * process at its first call, and an eager one comes out of the code cache ready. (A
 * TypeScript module cannot do the same: its emit drops the parentheses.)
 *
 * Declarations are hoisted, `var` bindings are not assigned until their statement runs:
 * the top-level statements that read a validator by name — `export const validate0 =
 * validate20;` and ajv's `const wrapper0 = {validate: validate22};` — move to the end,
 * where every validator is assigned. Validators only call each other when they run, after
 * the module has been evaluated.
 *
 * Each function's extent is found by matching braces outside string and regular
 * expression literals, then checked by the JavaScript parser: a function it cannot parse
 * throws rather than producing a broken module.
 */
export function eagerFunctions(code: string): string {
  const declaration = /(?<=^|[;}\n])function (validate\d+)\(/g;
  const parts: string[] = [];
  let position = 0;
  for (let match; (match = declaration.exec(code));) {
    const end = closingBrace(code, bodyStart(code, match.index + match[0].length - 1));
    const text = code.slice(match.index, end + 1);
    checkParses(text, match[1]);
    parts.push(code.slice(position, match.index), `var ${match[1]} = (${text});`);
    position = end + 1;
    declaration.lastIndex = position;
  }
  parts.push(code.slice(position));
  return moveReadsToEnd(parts.join(""));
}

/** Statements that read a validator binding at module evaluation. */
const READS = [
  /export const validate\d+ = validate\d+;\n?/g,
  /const wrapper\d+ = \{validate: validate\d+\};\n?/g,
];

function moveReadsToEnd(code: string): string {
  const moved: string[] = [];
  let rest = code;
  for (const pattern of READS) {
    rest = rest.replace(pattern, (statement) => {
      moved.push(statement.trimEnd());
      return "";
    });
  }
  return moved.length ? `${rest.trimEnd()}\n${moved.join("\n")}` : rest;
}

/** Index of the `{` that opens the body, given the `(` that opens the parameters. */
function bodyStart(code: string, open: number): number {
  const close = matching(code, open, "(", ")");
  const brace = code.indexOf("{", close);
  if (brace === -1) throw malformed("no function body");
  return brace;
}

function closingBrace(code: string, open: number): number {
  return matching(code, open, "{", "}");
}

/**
 * Index of the bracket that closes the one at `open`, skipping string and regex literals
 * and comments (ajv opens each body with a `sourceURL` comment).
 */
function matching(code: string, open: number, left: string, right: string): number {
  let depth = 0;
  for (let index = open; index < code.length; index++) {
    const char = code[index];
    if (char === '"' || char === "'") index = stringEnd(code, index);
    else if (char === "`") throw malformed("a template literal");
    else if (code.startsWith("/*", index)) index = commentEnd(code, index, "*/");
    else if (code.startsWith("//", index)) index = commentEnd(code, index, "\n");
    else if (char === "/" && startsRegex(code, index)) index = regexEnd(code, index);
    else if (char === left) depth++;
    else if (char === right && --depth === 0) return index;
  }
  throw malformed(`an unclosed '${left}'`);
}

function commentEnd(code: string, start: number, close: string): number {
  const end = code.indexOf(close, start + 2);
  if (end === -1) throw malformed("an unclosed comment");
  return end + close.length - 1;
}

function stringEnd(code: string, start: number): number {
  const quote = code[start];
  for (let index = start + 1; index < code.length; index++) {
    if (code[index] === "\\") index++;
    else if (code[index] === quote) return index;
  }
  throw malformed("an unclosed string");
}

/** A `/` after an operator or an opening bracket starts a regex literal, not a division. */
function startsRegex(code: string, index: number): boolean {
  let before = index - 1;
  while (before >= 0 && /\s/.test(code[before])) before--;
  return before < 0 || "(,=:[!&|?{};".includes(code[before]);
}

function regexEnd(code: string, start: number): number {
  let inClass = false;
  for (let index = start + 1; index < code.length; index++) {
    const char = code[index];
    if (char === "\\") index++;
    else if (char === "[") inClass = true;
    else if (char === "]") inClass = false;
    else if (char === "/" && !inClass) return index;
    else if (char === "\n") break;
  }
  throw malformed("an unclosed regular expression");
}

function checkParses(text: string, name: string): void {
  try {
    // Parsed, never called: the generated code is ours, built from our schemas.
    new Function(`return (${text});`);
  } catch (error) {
    throw malformed(`${name} does not parse once cut out (${(error as Error).message})`);
  }
}

function malformed(detail: string): SynError {
  return new SynError("schema_invalid", `Cannot rewrite the standalone validators: ${detail}`);
}
