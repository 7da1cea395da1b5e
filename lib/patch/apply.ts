import { isArrayIndexToken, parsePointer } from "../core/mod.ts";
import {
  cloneJson,
  isJsonObject,
  jsonEqual,
  type JsonObject,
  jsonWeight,
  setOwn,
} from "./_json_value.ts";
import { PatchError } from "./patch_error.ts";
import type { PatchOperation } from "./patch_operation.ts";
import { validatePatch } from "./validate_patch.ts";

/** Why one operation failed; `apply` turns it into a `PatchError` naming the operation. */
class OperationFailure extends Error {}

/**
 * The default limit on what `copy` operations may add to a document, in `jsonWeight`
 * units (about bytes of JSON): each copy can double a document, so a few hundred bytes
 * of patch could otherwise ask for more memory than there is.
 */
const MAX_COPIED_WEIGHT = 16 * 1024 * 1024;

/**
 * Applies an RFC 6902 patch and returns the new document; neither `document` nor the
 * patch is changed, and the result shares no objects with either. All six operations,
 * the `-` array index for `add`, index bounds, no `move` into the moved value's own
 * children, `test` by JSON equality. The patch is checked with `validatePatch` first.
 * The patch applies as a whole or not at all: the first failing operation throws a
 * `PatchError` (code `patch_failed`) such as
 * `patch operation 2 (remove /a/b) failed: path not found`. Copies that add up to more
 * than `maxCopiedWeight` (default `MAX_COPIED_WEIGHT`, about 16 MiB of JSON) fail the
 * same way, before they are made.
 */
export function apply(
  document: unknown,
  patch: readonly PatchOperation[],
  options: { maxCopiedWeight?: number } = {},
): unknown {
  const operations = validatePatch(patch);
  const limit = options.maxCopiedWeight ?? MAX_COPIED_WEIGHT;
  const budget = { left: limit, limit };
  let result = cloneJson(document);
  for (let index = 0; index < operations.length; index++) {
    const operation = operations[index];
    try {
      result = applyOperation(result, operation, budget);
    } catch (error) {
      if (!(error instanceof OperationFailure)) throw error;
      throw new PatchError("patch_failed", {
        index,
        op: operation.op,
        path: operation.path,
        reason: error.message,
      });
    }
  }
  return result;
}

function applyOperation(
  root: unknown,
  operation: PatchOperation,
  budget: { left: number; limit: number },
): unknown {
  const tokens = parsePointer(operation.path);
  switch (operation.op) {
    case "add":
      return addValue(root, tokens, cloneJson(operation.value));
    case "remove":
      if (tokens.length === 0) throw new OperationFailure("cannot remove the document root");
      removeValue(root, tokens);
      return root;
    case "replace":
      if (tokens.length === 0) return cloneJson(operation.value);
      replaceValue(root, tokens, cloneJson(operation.value));
      return root;
    case "move": {
      const fromTokens = parsePointer(operation.from);
      if (operation.from === operation.path) {
        readValue(root, fromTokens, "from path not found");
        return root;
      }
      // RFC 6902 §4.4: a location cannot be moved into one of its children.
      if (isPrefix(fromTokens, tokens)) {
        const from = operation.from === "" ? '""' : operation.from;
        throw new OperationFailure(`cannot move a value into its own child: from ${from}`);
      }
      const value = removeValue(root, fromTokens, "from path not found");
      return addValue(root, tokens, value);
    }
    case "copy": {
      const value = readValue(root, parsePointer(operation.from), "from path not found");
      budget.left -= jsonWeight(value, budget.left);
      if (budget.left < 0) {
        throw new OperationFailure(`copies would add more than ${budget.limit} to the document`);
      }
      return addValue(root, tokens, cloneJson(value));
    }
    case "test": {
      const value = readValue(root, tokens, "path not found");
      if (!jsonEqual(value, operation.value)) throw new OperationFailure("value does not match");
      return root;
    }
  }
}

function isPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  if (prefix.length >= tokens.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    if (prefix[index] !== tokens[index]) return false;
  }
  return true;
}

/** The container that holds the last token's location; every step before must exist. */
function parentOf(
  root: unknown,
  tokens: readonly string[],
  notFound: string,
): unknown[] | JsonObject {
  let current = root;
  for (let index = 0; index < tokens.length - 1; index++) {
    current = step(current, tokens[index], notFound);
  }
  if (typeof current !== "object" || current === null) {
    throw new OperationFailure(`${notFound}: parent is not an object or array`);
  }
  return current as unknown[] | JsonObject;
}

function step(current: unknown, token: string, notFound: string): unknown {
  if (Array.isArray(current)) {
    return current[existingIndex(current, token, notFound)];
  }
  if (isJsonObject(current) && Object.hasOwn(current, token)) return current[token];
  throw new OperationFailure(notFound);
}

/** RFC 6901 §4: an array index is digits without leading zeros, below the length. */
function existingIndex(array: readonly unknown[], token: string, notFound: string): number {
  if (!isArrayIndexToken(token)) {
    throw new OperationFailure(
      token === "-"
        ? `${notFound}: "-" names no existing element`
        : `invalid array index: ${token}`,
    );
  }
  const index = Number(token);
  if (index >= array.length) {
    throw new OperationFailure(
      `${notFound}: array index ${token} is out of bounds (length ${array.length})`,
    );
  }
  return index;
}

function readValue(root: unknown, tokens: readonly string[], notFound: string): unknown {
  let current = root;
  for (const token of tokens) current = step(current, token, notFound);
  return current;
}

function addValue(root: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, "path not found");
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    // RFC 6902 §4.1: "-" appends; an index may equal the length, not exceed it.
    if (last === "-") {
      parent.push(value);
      return root;
    }
    if (!isArrayIndexToken(last)) throw new OperationFailure(`invalid array index: ${last}`);
    const index = Number(last);
    if (index > parent.length) {
      throw new OperationFailure(
        `array index ${last} is out of bounds (length ${parent.length})`,
      );
    }
    parent.splice(index, 0, value);
  } else {
    setOwn(parent, last, value);
  }
  return root;
}

function removeValue(
  root: unknown,
  tokens: readonly string[],
  notFound = "path not found",
): unknown {
  const parent = parentOf(root, tokens, notFound);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    return parent.splice(existingIndex(parent, last, notFound), 1)[0];
  }
  if (!Object.hasOwn(parent, last)) throw new OperationFailure(notFound);
  const value = parent[last];
  delete parent[last];
  return value;
}

function replaceValue(root: unknown, tokens: readonly string[], value: unknown): void {
  const parent = parentOf(root, tokens, "path not found");
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent[existingIndex(parent, last, "path not found")] = value;
  } else if (Object.hasOwn(parent, last)) {
    setOwn(parent, last, value);
  } else {
    throw new OperationFailure("path not found");
  }
}
