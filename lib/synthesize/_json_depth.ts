/**
 * Deepest nesting of a value syn's synthesis walks accept. `JSON.parse` reads far deeper
 * values than `JSON.stringify`, ajv or any recursive walk can handle: a 1 MiB line nests
 * 200,000 levels, which overflowed the stack of `syn synthesize run`.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply a JSON value nests (objects and arrays; a scalar is 0), counted without
 * recursion; it stops counting past `limit`, so the answer is at most `limit + 1`.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return deepest;
}

/** Whether a value nests no deeper than `limit`. */
export function withinDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  return jsonDepth(value, limit) <= limit;
}
