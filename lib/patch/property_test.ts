/**
 * Property tests: random JSON pairs and random patches from a seeded generator of our
 * own, checked against an independent RFC 6902 implementation (fast-json-patch). Every
 * failure message names the seed that reproduces it.
 */
import assert from "node:assert/strict";
import jsonpatch from "fast-json-patch";
import { canonicalJson, escapePointerToken, parsePointer, resolvePointer } from "../core/mod.ts";
import { apply, diff, type PatchOperation } from "./mod.ts";
import { seededRandom } from "../../tests/fakes/random.ts";

const BASE_SEED = 0x5eed_2024;

/** Adds a member as JSON.parse does: a `__proto__` key stays data, never the prototype. */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

class Generator {
  readonly random: () => number;
  /** fast-json-patch refuses `__proto__` and reads inherited names; keep those out for it. */
  constructor(seed: number, readonly hostileKeys: boolean) {
    this.random = seededRandom(seed);
  }

  integer(below: number): number {
    return Math.floor(this.random() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.integer(items.length)];
  }

  key(): string {
    const keys = [
      "a",
      "b",
      "c",
      "ab",
      "a b",
      "",
      "~",
      "/",
      "a/b",
      "m~n",
      "~1",
      "~0/",
      "é",
      "ключ",
      "\uE000",
      "\uFFFF",
      "\u{1F600}",
      "\u{10FFFF}",
      "0",
      "10",
      "-",
    ];
    const hostile = ["__proto__", "constructor", "toString", "\uD800"];
    if (this.hostileKeys && this.random() < 0.05) return this.pick(hostile);
    if (this.random() < 0.1) return this.string();
    return this.pick(keys);
  }

  string(): string {
    const characters = ["x", "y", " ", "~", "/", "\\", '"', "é", "日", "\u{1F3B5}", "\n", "0"];
    let text = "";
    const length = this.integer(5);
    for (let index = 0; index < length; index++) text += this.pick(characters);
    return text;
  }

  scalar(): unknown {
    switch (this.integer(8)) {
      case 0:
        return null;
      case 1:
        return this.random() < 0.5;
      case 2:
        return this.integer(5);
      case 3:
        return this.pick([-0, 0, 1.5, -2.25, 1e21, 5e-324, Number.MAX_SAFE_INTEGER, -1e-7]);
      default:
        return this.string();
    }
  }

  value(depth = 0): unknown {
    const roll = this.random();
    if (depth >= 4 || roll < 0.45) return this.scalar();
    if (roll < 0.7) {
      return Array.from({ length: this.integer(4) }, () => this.value(depth + 1));
    }
    return this.object(depth);
  }

  object(depth = 0): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    const size = this.integer(5);
    for (let index = 0; index < size; index++) {
      const key = this.key();
      defineMember(result, key, this.value(depth + 1));
    }
    return result;
  }

  /** A changed copy of `value`: edits, deletions, insertions and type changes, sometimes none. */
  mutate(value: unknown, depth = 0): unknown {
    if (this.random() < 0.08) return this.value(depth);
    if (typeof value !== "object" || value === null) {
      return this.random() < 0.3 ? this.scalar() : value;
    }
    if (Array.isArray(value)) {
      if (this.random() < 0.6) return JSON.parse(JSON.stringify(value));
      const copy = value.map((item) => this.mutate(item, depth + 1));
      if (this.random() < 0.3) copy.push(this.value(depth + 1));
      return copy;
    }
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (this.random() < 0.15) continue;
      const item = (value as Record<string, unknown>)[key];
      defineMember(result, key, this.random() < 0.5 ? item : this.mutate(item, depth + 1));
    }
    if (this.random() < 0.3) {
      const key = this.key();
      if (!Object.hasOwn(result, key)) defineMember(result, key, this.value(depth + 1));
    }
    return result;
  }
}

/** Independent of `diff`'s comparator: compare arrays of code points. */
function codePointOrder(a: string, b: string): number {
  const x = Array.from(a, (character) => character.codePointAt(0) as number);
  const y = Array.from(b, (character) => character.codePointAt(0) as number);
  for (let index = 0; index < Math.min(x.length, y.length); index++) {
    if (x[index] !== y[index]) return x[index] - y[index];
  }
  return x.length - y.length;
}

const RANK: Record<string, number> = { remove: 0, add: 1, replace: 2 };

function applyIndependently(document: unknown, patch: unknown[]): unknown {
  // fast-json-patch mutates and aliases: give it its own copies.
  const copy = JSON.parse(JSON.stringify(document));
  return jsonpatch.applyPatch(copy, JSON.parse(JSON.stringify(patch)), true).newDocument;
}

Deno.test("diff() patches turn base into next under fast-json-patch and apply(), in spec order", () => {
  const pairs = 3_000;
  for (let round = 0; round < pairs; round++) {
    const seed = BASE_SEED + round;
    const generator = new Generator(seed, false);
    const base = round % 10 === 0 ? generator.value() : generator.object();
    const next = round % 7 === 0 ? generator.value() : generator.mutate(base);
    const where = `seed ${seed}: base ${JSON.stringify(base)} next ${JSON.stringify(next)}`;
    const patch = diff(base, next);
    const expected = canonicalJson(next);
    assert.equal(
      canonicalJson(applyIndependently(base, patch)),
      expected,
      `fast-json-patch, ${where}`,
    );
    assert.equal(canonicalJson(apply(base, patch)), expected, `apply(), ${where}`);
    for (let index = 1; index < patch.length; index++) {
      const previous = patch[index - 1];
      const current = patch[index];
      const order = codePointOrder(previous.path, current.path) ||
        RANK[previous.op] - RANK[current.op];
      assert.ok(order <= 0, `order of ${previous.path} and ${current.path}, ${where}`);
    }
    for (const operation of patch) {
      assert.ok(["add", "remove", "replace"].includes(operation.op), where);
      // Validity does not depend on order: no operation lies under another one's path.
      for (const other of patch) {
        if (other !== operation) assert.ok(!other.path.startsWith(operation.path + "/"), where);
      }
    }
    assert.deepEqual(diff(next, apply(base, patch)), [], `round trip, ${where}`);
  }
});

Deno.test("diff() and apply() agree on documents with hostile keys (__proto__, lone surrogates)", () => {
  for (let round = 0; round < 1_000; round++) {
    const seed = BASE_SEED + 100_000 + round;
    const generator = new Generator(seed, true);
    const base = generator.object();
    const next = generator.mutate(base);
    const where = `seed ${seed}: base ${JSON.stringify(base)} next ${JSON.stringify(next)}`;
    const result = apply(base, diff(base, next));
    assert.equal(canonicalJson(result), canonicalJson(next), where);
    assert.deepEqual(diff(result, next), [], where);
  }
  assert.equal(({} as Record<string, unknown>).a, undefined, "Object.prototype stays clean");
});

/** Every pointer in a document, the root included. */
function pointers(document: unknown): { path: string; value: unknown }[] {
  const found: { path: string; value: unknown }[] = [];
  const pending: [unknown, string][] = [[document, ""]];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    found.push({ path, value });
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push([item, `${path}/${index}`]));
    } else if (typeof value === "object" && value !== null) {
      for (const key of Object.keys(value)) {
        pending.push([
          (value as Record<string, unknown>)[key],
          `${path}/${escapePointerToken(key)}`,
        ]);
      }
    }
  }
  return found;
}

/** A plausible operation: mostly on existing locations, sometimes on missing ones. */
function randomOperation(generator: Generator, document: unknown): PatchOperation {
  const locations = pointers(document);
  const existing = generator.pick(locations);
  const target = (): string => {
    const location = generator.pick(locations);
    const roll = generator.random();
    if (Array.isArray(location.value)) {
      if (roll < 0.4) return `${location.path}/-`;
      return `${location.path}/${generator.integer(location.value.length + 2)}`;
    }
    if (roll < 0.5 && location.path !== "") return location.path;
    return `${location.path}/${escapePointerToken(generator.key())}`;
  };
  const value = generator.random() < 0.3 ? existing.value : generator.value(2);
  switch (generator.pick(["add", "add", "remove", "replace", "move", "copy", "test", "test"])) {
    case "add":
      return { op: "add", path: target(), value };
    case "remove":
      return { op: "remove", path: generator.random() < 0.8 ? existing.path || "/a" : target() };
    case "replace":
      return { op: "replace", path: generator.random() < 0.8 ? existing.path : target(), value };
    case "move":
      return {
        op: "move",
        from: generator.random() < 0.8 ? existing.path : target(),
        path: target(),
      };
    case "copy":
      return {
        op: "copy",
        from: generator.random() < 0.8 ? existing.path : target(),
        path: target(),
      };
    default:
      return { op: "test", path: existing.path, value };
  }
}

/** Whether the pointer steps into a value that is not an object or array. */
function throughScalar(document: unknown, pointer: string): boolean {
  let current = document;
  for (const token of parsePointer(pointer)) {
    if (typeof current !== "object" || current === null) return true;
    if (!Object.hasOwn(current, token)) return false;
    current = (current as Record<string, unknown>)[token];
  }
  return false;
}

/** Cases where RFC 6902 is clear and fast-json-patch departs from it; checked apart. */
function outsideCrossCheck(operation: PatchOperation, document: unknown): boolean {
  if (operation.op === "remove" && operation.path === "") return true;
  // fast-json-patch reads and assigns properties of numbers, strings and booleans as if
  // they were containers (adding a member to `3` succeeds), so paths through them differ.
  if (throughScalar(document, operation.path)) return true;
  if ("from" in operation && throughScalar(document, operation.from)) return true;
  if (operation.op === "move" || operation.op === "copy") {
    if (
      operation.op === "move" && operation.path !== operation.from &&
      operation.path.startsWith(operation.from + "/")
    ) return true;
    // fast-json-patch skips the bounds check on the add half of move and copy.
    let after = document;
    if (operation.op === "move") {
      try {
        after = apply(document, [{ op: "remove", path: operation.from }]);
      } catch {
        return false;
      }
    }
    if (throughScalar(after, operation.path)) return true;
    const slash = operation.path.lastIndexOf("/");
    const parent = resolvePointer(after, operation.path.slice(0, slash));
    const last = operation.path.slice(slash + 1);
    return parent.found && Array.isArray(parent.value) && /^\d+$/.test(last) &&
      Number(last) > parent.value.length;
  }
  return false;
}

Deno.test("apply() matches fast-json-patch on random patches, failures included", () => {
  let applied = 0;
  let failedBoth = 0;
  for (let round = 0; round < 3_000; round++) {
    const seed = BASE_SEED + 200_000 + round;
    const generator = new Generator(seed, false);
    let document: unknown = generator.object();
    const patch: PatchOperation[] = [];
    const length = 1 + generator.integer(4);
    for (let index = 0; index < length; index++) {
      const operation = randomOperation(generator, document);
      if (outsideCrossCheck(operation, document)) {
        assert.throws(
          () => apply(document, [operation]),
          `seed ${seed}: ${JSON.stringify(operation)}`,
        );
        continue;
      }
      patch.push(operation);
      try {
        document = apply(document, [operation]);
      } catch {
        break; // the rest of the patch is never reached
      }
    }
    const start = new Generator(seed, false).object();
    const where = `seed ${seed}: document ${JSON.stringify(start)} patch ${JSON.stringify(patch)}`;
    let ours: { ok: true; value: string } | { ok: false };
    let theirs: { ok: true; value: string } | { ok: false };
    try {
      ours = { ok: true, value: canonicalJson(apply(start, patch)) };
    } catch {
      ours = { ok: false };
    }
    try {
      theirs = { ok: true, value: canonicalJson(applyIndependently(start, patch)) };
    } catch {
      theirs = { ok: false };
    }
    assert.deepEqual(ours, theirs, where);
    if (ours.ok) applied++;
    else failedBoth++;
  }
  // The generator must exercise both outcomes, or the comparison proves little.
  assert.ok(applied > 1_000 && failedBoth > 300, `applied ${applied}, failed ${failedBoth}`);
});
