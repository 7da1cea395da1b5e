import assert from "node:assert/strict";

/** Awaits a promise that must reject with an instance of `type`, and returns that error. */
export async function rejection<T extends Error>(
  promise: Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  type: new (...args: any[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${error}`);
    return error;
  }
  throw new assert.AssertionError({ message: `expected a ${type.name}, but the promise resolved` });
}
