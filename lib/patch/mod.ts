/**
 * @module
 * RFC 6902 JSON Patch: a deterministic `diff` (the MCP adapter spec §5 rules: `add`,
 * `remove`, `replace` only, arrays replaced wholesale, operations sorted by path then
 * `remove` < `add` < `replace`), a full `apply` (all six operations) that never mutates
 * its input, and `validatePatch` for patches that come from users.
 *
 * ```ts
 * import { apply, diff } from "./mod.ts";
 * const base = { a: 1, b: [1], c: { d: 1 } };
 * const next = { a: 2, b: [1, 2], c: {}, e: "x/y" };
 * const patch = diff(base, next);
 * // [{ op: "replace", path: "/a", value: 2 }, { op: "replace", path: "/b", value: [1, 2] },
 * //  { op: "remove", path: "/c/d" }, { op: "add", path: "/e", value: "x/y" }]
 * apply(base, patch); // deep-equals next
 * ```
 */
export type { DiffOperation, PatchOperation } from "./patch_operation.ts";
export { PatchError, type PatchErrorData } from "./patch_error.ts";
export { diff } from "./diff.ts";
export { apply } from "./apply.ts";
export { validatePatch } from "./validate_patch.ts";
