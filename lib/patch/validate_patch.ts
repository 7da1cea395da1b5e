import { parsePointer } from "../core/mod.ts";
import { PatchError } from "./patch_error.ts";
import { PATCH_OPERATION_NAMES, type PatchOperation } from "./patch_operation.ts";

/**
 * Checks the shape of a user-supplied patch (RFC 6902 §3–4) and returns it as typed
 * operations, each a fresh object holding only the members its `op` defines (other members
 * are ignored, RFC 6902 §4). Values are not copied. Throws `PatchError` with code
 * `invalid_patch` naming the first bad operation:
 * `patch operation 1 (move /a) is invalid: "from" must be a JSON Pointer string`.
 */
export function validatePatch(patch: unknown): PatchOperation[] {
  if (!Array.isArray(patch)) {
    throw new PatchError("invalid_patch", {
      index: null,
      op: null,
      path: null,
      reason: `expected an array of operations, got ${describe(patch)}`,
    });
  }
  const operations: PatchOperation[] = new Array(patch.length);
  for (let index = 0; index < patch.length; index++) {
    operations[index] = validateOperation(patch[index], index);
  }
  return operations;
}

function validateOperation(candidate: unknown, index: number): PatchOperation {
  if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
    throw invalid(index, null, null, `expected an object, got ${describe(candidate)}`);
  }
  const member = candidate as Record<string, unknown>;
  const op = Object.hasOwn(member, "op") ? member.op : undefined;
  const path = Object.hasOwn(member, "path") ? member.path : undefined;
  const opText = typeof op === "string" ? op : null;
  const pathText = typeof path === "string" ? path : null;
  if (typeof op !== "string" || !(PATCH_OPERATION_NAMES as readonly string[]).includes(op)) {
    const reason = op === undefined
      ? `"op" is missing`
      : `"op" must be one of ${PATCH_OPERATION_NAMES.join(", ")}: ${JSON.stringify(op)}`;
    throw invalid(index, opText, pathText, reason);
  }
  if (typeof path !== "string") {
    throw invalid(index, op, null, `"path" must be a JSON Pointer string`);
  }
  checkPointer(path, "path", index, op);
  switch (op) {
    case "remove":
      return { op, path };
    case "move":
    case "copy": {
      const from = Object.hasOwn(member, "from") ? member.from : undefined;
      if (typeof from !== "string") {
        throw invalid(index, op, path, `"from" must be a JSON Pointer string`);
      }
      checkPointer(from, "from", index, op, path);
      return { op, from, path };
    }
    default: {
      // RFC 6902 §4.1: `value` must be present; JSON has no `undefined`.
      if (!Object.hasOwn(member, "value") || member.value === undefined) {
        throw invalid(index, op, path, `"value" is missing`);
      }
      return { op: op as "add" | "replace" | "test", path, value: member.value };
    }
  }
}

function checkPointer(
  pointer: string,
  member: "path" | "from",
  index: number,
  op: string,
  path: string = pointer,
): void {
  try {
    parsePointer(pointer);
  } catch {
    throw invalid(index, op, path, `"${member}" is not a valid JSON Pointer: ${pointer}`);
  }
}

function invalid(index: number, op: string | null, path: string | null, reason: string) {
  return new PatchError("invalid_patch", { index, op, path, reason });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
