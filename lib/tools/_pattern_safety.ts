/**
 * Regular expressions in an untrusted argument schema run on the main thread (ajv's
 * `pattern`, `patternProperties`), so one ambiguous pattern stalls every session: with
 * `^(a|aa)+$` a 41-character argument took 11.7 s. JavaScript's engine backtracks, so
 * instead of a linear-time engine these rules refuse what makes backtracking explode,
 * and a length cap bounds the rest.
 */
import { isRecord } from "../core/mod.ts";

/** Longest pattern accepted, and longest string a pattern is run on. */
export const MAX_PATTERN_CHARS = 256;
export const MAX_PATTERN_INPUT_CHARS = 256;
/** More unbounded quantifiers than this in one pattern is refused (polynomial backtracking). */
const MAX_UNBOUNDED_QUANTIFIERS = 2;

/**
 * Why a pattern is refused, or undefined: too long, a backreference or lookaround, a
 * quantified group holding a quantifier or an alternation (`(a+)+`, `(a|aa)+`), or more
 * than two unbounded quantifiers.
 */
export function patternRisk(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_CHARS) return `longer than ${MAX_PATTERN_CHARS} characters`;
  if (/\\[1-9]|\\k</.test(pattern)) return "a backreference";
  if (/\(\?<?[=!]/.test(pattern)) return "a lookaround";
  const groups: { risky: boolean }[] = [{ risky: false }];
  let unbounded = 0;
  let closed: { risky: boolean } | undefined;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    const quantifier = quantifierAt(pattern, at);
    if (quantifier) {
      if (quantifier.unbounded) unbounded++;
      if (closed?.risky) return "a quantified group that holds a quantifier or an alternation";
      groups[groups.length - 1].risky = true;
      at += quantifier.length - 1;
      closed = undefined;
      continue;
    }
    closed = undefined;
    if (char === "\\") at++;
    else if (char === "[") at = classEnd(pattern, at);
    else if (char === "(") groups.push({ risky: false });
    else if (char === "|") groups[groups.length - 1].risky = true;
    else if (char === ")" && groups.length > 1) {
      closed = groups.pop()!;
      if (closed.risky) groups[groups.length - 1].risky = true;
    }
  }
  if (unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
    return `more than ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers`;
  }
  return undefined;
}

function quantifierAt(
  pattern: string,
  at: number,
): { length: number; unbounded: boolean } | undefined {
  const char = pattern[at];
  if (char === "*" || char === "+") {
    return { length: pattern[at + 1] === "?" ? 2 : 1, unbounded: true };
  }
  if (char === "?" && pattern[at - 1] !== "(") return { length: 1, unbounded: false };
  const braces = /^\{(\d+)(,(\d*))?\}\??/.exec(pattern.slice(at));
  if (!braces) return undefined;
  return { length: braces[0].length, unbounded: braces[2] !== undefined && braces[3] === "" };
}

function classEnd(pattern: string, at: number): number {
  for (let index = at + 1; index < pattern.length; index++) {
    if (pattern[index] === "\\") index++;
    else if (pattern[index] === "]") return index;
  }
  return pattern.length;
}

/** Every regular expression of a schema with where it is, walked without recursion. */
function schemaPatterns(schema: unknown): { pointer: string; pattern: string }[] {
  const found: { pointer: string; pattern: string }[] = [];
  const stack: { node: unknown; pointer: string }[] = [{ node: schema, pointer: "" }];
  while (stack.length) {
    const { node, pointer } = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ node: item, pointer: `${pointer}/${index}` }));
      continue;
    }
    if (!isRecord(node)) continue;
    if (typeof node.pattern === "string") found.push({ pointer, pattern: node.pattern });
    if (isRecord(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) {
        found.push({ pointer: `${pointer}/patternProperties`, pattern: key });
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== "const" && key !== "enum" && key !== "default" && key !== "examples") {
        stack.push({ node: value, pointer: `${pointer}/${key}` });
      }
    }
  }
  return found;
}

/** The refused patterns of an argument schema, as messages (empty: all are safe). */
export function patternProblems(schema: unknown): string[] {
  return schemaPatterns(schema).flatMap(({ pointer, pattern }) => {
    const risk = patternRisk(pattern);
    return risk ? [`${pointer || "/"}: pattern refused (${risk})`] : [];
  });
}

/**
 * A copy of a schema in which every string checked by `pattern` is also capped at
 * `MAX_PATTERN_INPUT_CHARS` (ajv checks `maxLength` before `pattern` and stops at the
 * first failure), and property names matched by `patternProperties` likewise.
 */
export function withPatternInputCap(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(schema);
  const stack: unknown[] = [copy];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    if (!isRecord(node)) continue;
    if (typeof node.pattern === "string") node.maxLength = capped(node.maxLength);
    if (isRecord(node.patternProperties)) {
      const names = isRecord(node.propertyNames) ? node.propertyNames : {};
      node.propertyNames = { ...names, maxLength: capped(names.maxLength) };
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== "const" && key !== "enum" && key !== "default") stack.push(value);
    }
  }
  return copy;
}

function capped(maxLength: unknown): number {
  return typeof maxLength === "number" && maxLength < MAX_PATTERN_INPUT_CHARS
    ? maxLength
    : MAX_PATTERN_INPUT_CHARS;
}
