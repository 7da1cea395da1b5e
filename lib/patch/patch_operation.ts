/** RFC 6902 patch operation types. */

/** One RFC 6902 operation. Members not defined for an operation are ignored (RFC 6902 §4). */
export type PatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown }
  | { op: "move"; from: string; path: string }
  | { op: "copy"; from: string; path: string }
  | { op: "test"; path: string; value: unknown };

/** The operations `diff` produces (MCP adapter spec §5 allows only these three). */
export type DiffOperation = Extract<PatchOperation, { op: "add" | "remove" | "replace" }>;

/** The six operation names of RFC 6902 §4. */
export const PATCH_OPERATION_NAMES: readonly PatchOperation["op"][] = Object.freeze([
  "add",
  "remove",
  "replace",
  "move",
  "copy",
  "test",
]);
