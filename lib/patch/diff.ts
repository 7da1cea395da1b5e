import { compareCodePoints, escapePointerToken, SynError } from "../core/mod.ts";
import { cloneJson, isJsonObject, jsonEqual } from "./_json_value.ts";
import type { DiffOperation } from "./patch_operation.ts";

/** MCP adapter spec §5: at the same path, `remove` < `add` < `replace`. */
const OPERATION_RANK = { remove: 0, add: 1, replace: 2 } as const;

/**
 * The RFC 6902 patch that turns `base` into `next`, deterministic per the MCP adapter spec
 * §5: only `add`, `remove` and `replace`; objects are compared key by key; arrays, and any
 * change of type, become one `replace` of the whole value; a changed root is a `replace`
 * at `""`; operations are sorted by path (by code point, as Python sorts), then
 * `remove` < `add` < `replace`. Values in the patch are copies, never shared with `next`.
 *
 * Sorting cannot break the patch: recursion goes only into keys whose values are objects
 * on both sides, so every operation's parent exists in `base` and in `next`, and no
 * operation's path lies under another's. The operations touch disjoint places and any
 * order of them gives `next`.
 *
 * Paths repeat their parents' keys, so a small document can need a huge patch (a changed
 * leaf at each of n levels: n² characters of paths). With `maxPathChars`, a patch whose
 * paths add up to more characters throws `SynError` code `payload_too_large` as soon as
 * it gets there, before it is built in full.
 */
export function diff(
  base: unknown,
  next: unknown,
  options: { maxPathChars?: number } = {},
): DiffOperation[] {
  const maxPathChars = options.maxPathChars ?? Infinity;
  let pathChars = 0;
  const operations: DiffOperation[] = [];
  const push = (operation: DiffOperation) => {
    // `.length` of a concatenated string is O(1): counting costs nothing.
    pathChars += operation.path.length;
    if (pathChars > maxPathChars) {
      throw new SynError(
        "payload_too_large",
        `Patch paths are over the limit of ${maxPathChars} characters`,
        { limit: maxPathChars },
      );
    }
    operations.push(operation);
  };
  if (!isJsonObject(base) || !isJsonObject(next)) {
    if (!jsonEqual(base, next)) {
      push({ op: "replace", path: "", value: cloneJson(next) });
    }
    return operations;
  }
  // An explicit stack of [base object, next object, pointer] instead of recursion keeps
  // 10,000-level documents off the call stack. The spec processes keys in sorted order; as
  // every path occurs at most once, the final sort alone fixes the output order.
  const pending: [Record<string, unknown>, Record<string, unknown>, string][] = [[base, next, ""]];
  while (pending.length > 0) {
    const [before, after, pointer] = pending.pop()!;
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) {
        push({ op: "remove", path: pointer + "/" + escapePointerToken(key) });
      }
    }
    for (const key of Object.keys(after)) {
      const value = after[key];
      if (!Object.hasOwn(before, key)) {
        push({
          op: "add",
          path: pointer + "/" + escapePointerToken(key),
          value: cloneJson(value),
        });
        continue;
      }
      const previous = before[key];
      if (previous === value) continue;
      if (isJsonObject(previous) && isJsonObject(value)) {
        pending.push([previous, value, pointer + "/" + escapePointerToken(key)]);
      } else if (!jsonEqual(previous, value)) {
        push({
          op: "replace",
          path: pointer + "/" + escapePointerToken(key),
          value: cloneJson(value),
        });
      }
    }
  }
  return operations.sort(compareOperations);
}

/** The spec's output order: by path (code points), then `remove` < `add` < `replace`. */
export function compareOperations(left: DiffOperation, right: DiffOperation): number {
  return compareCodePoints(left.path, right.path) ||
    OPERATION_RANK[left.op] - OPERATION_RANK[right.op];
}
