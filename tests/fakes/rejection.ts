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

/** The `code` of what `promise` rejects with (a `SynError`'s), or "ok" when it resolves. */
export async function outcomeCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    assert.equal(typeof code, "string", `not a coded error: ${error}`);
    return code as string;
  }
}
