/**
 * JSON value helpers shared by diff and apply. All of them walk with an explicit stack
 * instead of recursion, so a 10,000-level document cannot overflow the call stack.
 */
import { isRecord, setOwn } from "../core/mod.ts";

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isJsonObject: (value: unknown) => value is JsonObject = isRecord;

export { setOwn };

/**
 * Equality as JSON sees it: objects compare by their own keys whatever the order, arrays
 * element by element, and `-0` equals `0` (both serialise as `0`).
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) {
    return false;
  }
  const pending: unknown[] = [left, right];
  while (pending.length > 0) {
    const b = pending.pop();
    const a = pending.pop();
    if (a === b) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    const aIsArray = Array.isArray(a);
    if (aIsArray !== Array.isArray(b)) return false;
    if (aIsArray) {
      const bArray = b as unknown[];
      if (a.length !== bArray.length) return false;
      for (let index = 0; index < a.length; index++) {
        const x = a[index];
        const y = bArray[index];
        if (x === y) continue;
        if (typeof x !== "object" || typeof y !== "object") return false;
        pending.push(x, y);
      }
    } else {
      const aObject = a as JsonObject;
      const bObject = b as JsonObject;
      const keys = Object.keys(aObject);
      if (keys.length !== Object.keys(bObject).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(bObject, key)) return false;
        const x = aObject[key];
        const y = bObject[key];
        if (x === y) continue;
        if (typeof x !== "object" || typeof y !== "object") return false;
        pending.push(x, y);
      }
    }
  }
  return true;
}

/** A deep copy of a JSON value, built with ordinary prototypes and `__proto__` keys kept as data. */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const root = emptyLike(value);
  const pending: unknown[] = [value, root];
  while (pending.length > 0) {
    const target = pending.pop();
    const source = pending.pop();
    if (Array.isArray(source)) {
      const targetArray = target as unknown[];
      for (let index = 0; index < source.length; index++) {
        const item = source[index];
        if (typeof item === "object" && item !== null) {
          const copy = emptyLike(item);
          targetArray[index] = copy;
          pending.push(item, copy);
        } else {
          targetArray[index] = item;
        }
      }
    } else {
      const sourceObject = source as JsonObject;
      const targetObject = target as JsonObject;
      for (const key of Object.keys(sourceObject)) {
        const item = sourceObject[key];
        if (typeof item === "object" && item !== null) {
          const copy = emptyLike(item);
          setOwn(targetObject, key, copy);
          pending.push(item, copy);
        } else {
          setOwn(targetObject, key, item);
        }
      }
    }
  }
  return root as T;
}

function emptyLike(value: object): unknown[] | JsonObject {
  return Array.isArray(value) ? new Array(value.length) : {};
}

/**
 * About how large a JSON value is: one per value plus the length of every string and key.
 * Counting stops as soon as it passes `limit` (the result is then just over it).
 */
export function jsonWeight(value: unknown, limit = Infinity): number {
  let weight = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && weight <= limit) {
    const item = pending.pop();
    weight++;
    if (typeof item === "string") weight += item.length;
    else if (Array.isArray(item)) {
      for (let index = 0; index < item.length && index <= limit - weight; index++) {
        pending.push(item[index]);
      }
    } else if (typeof item === "object" && item !== null) {
      for (const key of Object.keys(item)) {
        weight += key.length;
        pending.push((item as JsonObject)[key]);
      }
    }
  }
  return weight;
}
