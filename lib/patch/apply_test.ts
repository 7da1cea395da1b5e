import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { apply, PatchError, type PatchOperation, validatePatch } from "./mod.ts";

/** Asserts that `run` throws a PatchError with this message and data. */
function assertPatchError(
  run: () => unknown,
  expected: {
    code: string;
    message: string;
    index: number | null;
    op: string | null;
    path: string | null;
  },
) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof PatchError);
    assert.ok(error instanceof SynError);
    assert.equal(error.code, expected.code);
    assert.equal(error.message, expected.message);
    assert.equal(error.data.index, expected.index);
    assert.equal(error.data.op, expected.op);
    assert.equal(error.data.path, expected.path);
    assert.equal(typeof error.data.reason, "string");
    assert.ok(expected.message.endsWith(error.data.reason));
    return true;
  });
}

function failed(index: number, op: string, path: string, reason: string) {
  const label = path === "" ? '""' : path;
  return {
    code: "patch_failed",
    message: `patch operation ${index} (${op} ${label}) failed: ${reason}`,
    index,
    op,
    path,
  };
}

// RFC 6902 Appendix A, examples A.1–A.16.
const RFC_EXAMPLES: { name: string; doc: unknown; patch: unknown[]; expected?: unknown }[] = [
  {
    name: "A.1 adding an object member",
    doc: { foo: "bar" },
    patch: [{ op: "add", path: "/baz", value: "qux" }],
    expected: { baz: "qux", foo: "bar" },
  },
  {
    name: "A.2 adding an array element",
    doc: { foo: ["bar", "baz"] },
    patch: [{ op: "add", path: "/foo/1", value: "qux" }],
    expected: { foo: ["bar", "qux", "baz"] },
  },
  {
    name: "A.3 removing an object member",
    doc: { baz: "qux", foo: "bar" },
    patch: [{ op: "remove", path: "/baz" }],
    expected: { foo: "bar" },
  },
  {
    name: "A.4 removing an array element",
    doc: { foo: ["bar", "qux", "baz"] },
    patch: [{ op: "remove", path: "/foo/1" }],
    expected: { foo: ["bar", "baz"] },
  },
  {
    name: "A.5 replacing a value",
    doc: { baz: "qux", foo: "bar" },
    patch: [{ op: "replace", path: "/baz", value: "boo" }],
    expected: { baz: "boo", foo: "bar" },
  },
  {
    name: "A.6 moving a value",
    doc: { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
    patch: [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
    expected: { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
  },
  {
    name: "A.7 moving an array element",
    doc: { foo: ["all", "grass", "cows", "eat"] },
    patch: [{ op: "move", from: "/foo/1", path: "/foo/3" }],
    expected: { foo: ["all", "cows", "eat", "grass"] },
  },
  {
    name: "A.8 testing a value: success",
    doc: { baz: "qux", foo: ["a", 2, "c"] },
    patch: [{ op: "test", path: "/baz", value: "qux" }, { op: "test", path: "/foo/1", value: 2 }],
    expected: { baz: "qux", foo: ["a", 2, "c"] },
  },
  {
    name: "A.10 adding a nested member object",
    doc: { foo: "bar" },
    patch: [{ op: "add", path: "/child", value: { grandchild: {} } }],
    expected: { foo: "bar", child: { grandchild: {} } },
  },
  {
    name: "A.11 ignoring unrecognized elements",
    doc: { foo: "bar" },
    patch: [{ op: "add", path: "/baz", value: "qux", xyz: 123 }],
    expected: { foo: "bar", baz: "qux" },
  },
  {
    name: "A.14 ~ escape ordering",
    doc: { "/": 9, "~1": 10 },
    patch: [{ op: "test", path: "/~01", value: 10 }],
    expected: { "/": 9, "~1": 10 },
  },
  {
    name: "A.16 adding an array value",
    doc: { foo: ["bar"] },
    patch: [{ op: "add", path: "/foo/-", value: ["abc", "def"] }],
    expected: { foo: ["bar", ["abc", "def"]] },
  },
];

for (const example of RFC_EXAMPLES) {
  Deno.test(`apply() follows RFC 6902 ${example.name}`, () => {
    assert.deepEqual(apply(example.doc, example.patch as PatchOperation[]), example.expected);
  });
}

Deno.test("apply() fails the RFC 6902 error examples A.9, A.12, A.13, A.15", () => {
  assertPatchError(
    () => apply({ baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }]),
    failed(0, "test", "/baz", "value does not match"),
  );
  assertPatchError(
    () => apply({ foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }]),
    failed(0, "add", "/baz/bat", "path not found"),
  );
  // A.13: a JSON text with two "op" members cannot be represented after JSON.parse;
  // what remains is an operation of the wrong shape.
  assertPatchError(
    () => validatePatch([{ op: "remove", path: "/baz", value: "qux" }, { op: "move", path: "/a" }]),
    {
      code: "invalid_patch",
      message: 'patch operation 1 (move /a) is invalid: "from" must be a JSON Pointer string',
      index: 1,
      op: "move",
      path: "/a",
    },
  );
  assertPatchError(
    () => apply({ "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: "10" }]),
    failed(0, "test", "/~01", "value does not match"),
  );
});

Deno.test("apply() names the failing operation's index, op and path", () => {
  const patch: PatchOperation[] = [
    { op: "add", path: "/a/c", value: 1 },
    { op: "test", path: "/a/c", value: 1 },
    { op: "remove", path: "/a/b" },
  ];
  assertPatchError(() => apply({ a: {} }, patch), failed(2, "remove", "/a/b", "path not found"));
});

Deno.test("apply() never mutates the document or the patch, and shares nothing with them", () => {
  const document = { list: [1, 2], nested: { a: { b: 1 } } };
  const value = { fresh: [1] };
  const patch: PatchOperation[] = [
    { op: "add", path: "/list/-", value },
    { op: "remove", path: "/nested/a/b" },
    { op: "copy", from: "/list", path: "/copy" },
  ];
  const documentText = JSON.stringify(document);
  const patchText = JSON.stringify(patch);
  const result = apply(document, patch) as { list: unknown[]; nested: unknown; copy: unknown[] };
  assert.equal(JSON.stringify(document), documentText);
  assert.equal(JSON.stringify(patch), patchText);
  assert.deepEqual(result, {
    list: [1, 2, { fresh: [1] }],
    nested: { a: {} },
    copy: [1, 2, { fresh: [1] }],
  });
  assert.notEqual(result.list[2], value);
  assert.notEqual(result.copy[2], result.list[2]);
  // A failing patch leaves the input untouched as well.
  assert.throws(() =>
    apply(document, [{ op: "remove", path: "/list/0" }, { op: "remove", path: "/x" }])
  );
  assert.equal(JSON.stringify(document), documentText);
});

Deno.test("apply() handles array indexes: '-', bounds, leading zeros", () => {
  assert.deepEqual(apply([1, 2], [{ op: "add", path: "/2", value: 3 }]), [1, 2, 3]);
  assert.deepEqual(apply([1, 2], [{ op: "add", path: "/0", value: 0 }]), [0, 1, 2]);
  assert.deepEqual(apply([], [{ op: "add", path: "/-", value: 1 }]), [1]);
  assertPatchError(
    () => apply([1, 2], [{ op: "add", path: "/3", value: 3 }]),
    failed(0, "add", "/3", "array index 3 is out of bounds (length 2)"),
  );
  assertPatchError(
    () => apply([1, 2], [{ op: "replace", path: "/2", value: 3 }]),
    failed(0, "replace", "/2", "path not found: array index 2 is out of bounds (length 2)"),
  );
  assertPatchError(
    () => apply([1, 2], [{ op: "remove", path: "/-" }]),
    failed(0, "remove", "/-", 'path not found: "-" names no existing element'),
  );
  assertPatchError(
    () => apply([1, 2], [{ op: "add", path: "/01", value: 0 }]),
    failed(0, "add", "/01", "invalid array index: 01"),
  );
  assertPatchError(
    () => apply({ a: [1] }, [{ op: "test", path: "/a/x", value: 1 }]),
    failed(0, "test", "/a/x", "invalid array index: x"),
  );
});

Deno.test("apply() works on the root", () => {
  assert.deepEqual(apply({ a: 1 }, [{ op: "replace", path: "", value: [1] }]), [1]);
  assert.deepEqual(apply({ a: 1 }, [{ op: "add", path: "", value: 2 }]), 2);
  assert.deepEqual(apply({ a: 1 }, [{ op: "test", path: "", value: { a: 1 } }]), { a: 1 });
  assert.deepEqual(apply({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "" }]), { b: 1 });
  assert.deepEqual(apply({ a: 1 }, [{ op: "copy", from: "", path: "/self" }]), {
    a: 1,
    self: { a: 1 },
  });
  assertPatchError(
    () => apply({ a: 1 }, [{ op: "remove", path: "" }]),
    failed(0, "remove", "", "cannot remove the document root"),
  );
});

Deno.test("apply() forbids moving a value into its own child and allows moving onto itself", () => {
  assertPatchError(
    () => apply({ a: { b: {} } }, [{ op: "move", from: "/a", path: "/a/b/c" }]),
    failed(0, "move", "/a/b/c", "cannot move a value into its own child: from /a"),
  );
  assertPatchError(
    () => apply({ a: 1 }, [{ op: "move", from: "", path: "/x" }]),
    failed(0, "move", "/x", 'cannot move a value into its own child: from ""'),
  );
  // "/ab" is a sibling of "/a", not a child.
  assert.deepEqual(apply({ a: 1 }, [{ op: "move", from: "/a", path: "/ab" }]), { ab: 1 });
  assert.deepEqual(apply({ a: 1 }, [{ op: "move", from: "/a", path: "/a" }]), { a: 1 });
  assertPatchError(
    () => apply({ a: 1 }, [{ op: "move", from: "/b", path: "/b" }]),
    failed(0, "move", "/b", "from path not found"),
  );
  assertPatchError(
    () => apply({ a: 1 }, [{ op: "copy", from: "/b", path: "/c" }]),
    failed(0, "copy", "/c", "from path not found"),
  );
});

Deno.test("apply() tests by JSON equality: key order and -0 do not matter, types do", () => {
  const document = { a: { x: 1, y: [0, { z: null }] } };
  assert.deepEqual(
    apply(document, [{ op: "test", path: "/a", value: { y: [-0, { z: null }], x: 1 } }]),
    document,
  );
  for (
    const value of [{ x: 1 }, { x: 1, y: [0, { z: null }], w: 1 }, { x: "1", y: [0, { z: null }] }]
  ) {
    assert.throws(() => apply(document, [{ op: "test", path: "/a", value }]), PatchError);
  }
  assert.throws(() => apply({ a: [] }, [{ op: "test", path: "/a", value: {} }]), PatchError);
  assert.throws(() => apply({ a: null }, [{ op: "test", path: "/a", value: {} }]), PatchError);
});

Deno.test("apply() refuses paths through scalars and missing parents", () => {
  assertPatchError(
    () => apply({ a: 1 }, [{ op: "add", path: "/a/b", value: 1 }]),
    failed(0, "add", "/a/b", "path not found: parent is not an object or array"),
  );
  assertPatchError(
    () => apply({ a: "text" }, [{ op: "replace", path: "/a/0", value: 1 }]),
    failed(0, "replace", "/a/0", "path not found: parent is not an object or array"),
  );
  assertPatchError(
    () => apply({}, [{ op: "replace", path: "/toString", value: 1 }]),
    failed(0, "replace", "/toString", "path not found"),
  );
});

Deno.test("apply() treats __proto__ as an ordinary key", () => {
  const document = JSON.parse('{"__proto__": {"polluted": true}, "a": {}}');
  const result = apply(document, [
    { op: "add", path: "/a/__proto__", value: { inner: 1 } },
    { op: "replace", path: "/__proto__/polluted", value: false },
    { op: "copy", from: "/a", path: "/b" },
  ]) as Record<string, Record<string, unknown>>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(Object.getPrototypeOf(result.a), Object.prototype);
  assert.deepEqual(Object.keys(result.a), ["__proto__"]);
  assert.equal(
    JSON.stringify(result),
    '{"__proto__":{"polluted":false},"a":{"__proto__":{"inner":1}},"b":{"__proto__":{"inner":1}}}',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const removed = apply(result, [{ op: "remove", path: "/__proto__" }]) as Record<string, unknown>;
  assert.deepEqual(Object.keys(removed), ["a", "b"]);
  assert.equal(Object.getPrototypeOf(removed), Object.prototype);
});

Deno.test("apply() copes with 10,000 levels of nesting", () => {
  const depth = 10_000;
  let document: unknown = { leaf: 1 };
  for (let level = 0; level < depth; level++) document = { k: document };
  const path = "/k".repeat(depth) + "/leaf";
  const result = apply(document, [
    { op: "test", path, value: 1 },
    { op: "replace", path, value: 2 },
    { op: "copy", from: "/k", path: "/copy" },
  ]) as { copy: unknown };
  let current = result.copy as Record<string, unknown>;
  for (let level = 1; level < depth; level++) current = current.k as Record<string, unknown>;
  assert.deepEqual(current, { leaf: 2 });
});

Deno.test("validatePatch() returns clean operations and ignores unknown members", () => {
  const value = { v: 1 };
  const operations = validatePatch([
    { op: "add", path: "/a", value, extra: true },
    { op: "remove", path: "/b", value: 1 },
    { op: "move", from: "/c", path: "/d", value: 2 },
    { op: "copy", from: "", path: "/e" },
    { op: "test", path: "/f", value: null },
    { op: "replace", path: "", value: false },
  ]);
  assert.deepEqual(operations, [
    { op: "add", path: "/a", value },
    { op: "remove", path: "/b" },
    { op: "move", from: "/c", path: "/d" },
    { op: "copy", from: "", path: "/e" },
    { op: "test", path: "/f", value: null },
    { op: "replace", path: "", value: false },
  ]);
  assert.equal((operations[0] as { value: unknown }).value, value);
});

Deno.test("validatePatch() rejects malformed patches with a clear message", () => {
  const invalid = (
    index: number | null,
    op: string | null,
    path: string | null,
    message: string,
  ) => ({
    code: "invalid_patch",
    message,
    index,
    op,
    path,
  });
  assertPatchError(
    () => validatePatch({ op: "add" }),
    invalid(null, null, null, "patch is invalid: expected an array of operations, got an object"),
  );
  assertPatchError(
    () => validatePatch([null]),
    invalid(0, null, null, "patch operation 0 is invalid: expected an object, got null"),
  );
  assertPatchError(
    () => validatePatch([{ path: "/a" }]),
    invalid(0, null, "/a", 'patch operation 0 is invalid: "op" is missing'),
  );
  assertPatchError(
    () => validatePatch([{ op: "update", path: "/a" }]),
    invalid(
      0,
      "update",
      "/a",
      'patch operation 0 (update /a) is invalid: "op" must be one of add, remove, replace, move, copy, test: "update"',
    ),
  );
  assertPatchError(
    () => validatePatch([{ op: "remove", path: "/a" }, { op: "remove" }]),
    invalid(
      1,
      "remove",
      null,
      'patch operation 1 is invalid: "path" must be a JSON Pointer string',
    ),
  );
  assertPatchError(
    () => validatePatch([{ op: "remove", path: "a" }]),
    invalid(
      0,
      "remove",
      "a",
      'patch operation 0 (remove a) is invalid: "path" is not a valid JSON Pointer: a',
    ),
  );
  assertPatchError(
    () => validatePatch([{ op: "copy", from: "/~2", path: "/b" }]),
    invalid(
      0,
      "copy",
      "/b",
      'patch operation 0 (copy /b) is invalid: "from" is not a valid JSON Pointer: /~2',
    ),
  );
  assertPatchError(
    () => validatePatch([{ op: "add", path: "/a" }]),
    invalid(0, "add", "/a", 'patch operation 0 (add /a) is invalid: "value" is missing'),
  );
  assertPatchError(
    () => validatePatch([{ op: "test", path: "/a", value: undefined }]),
    invalid(0, "test", "/a", 'patch operation 0 (test /a) is invalid: "value" is missing'),
  );
  // apply() checks the shape too, before touching anything.
  assertPatchError(
    () => apply({}, [{ op: "add", path: "/a" } as unknown as PatchOperation]),
    invalid(0, "add", "/a", 'patch operation 0 (add /a) is invalid: "value" is missing'),
  );
});

Deno.test("PatchError serialises without a stack", () => {
  try {
    apply({}, [{ op: "remove", path: "/a" }]);
    assert.fail("expected a PatchError");
  } catch (error) {
    assert.ok(error instanceof PatchError);
    assert.deepEqual(JSON.parse(JSON.stringify(error)), {
      code: "patch_failed",
      message: "patch operation 0 (remove /a) failed: path not found",
      data: { index: 0, op: "remove", path: "/a", reason: "path not found" },
    });
  }
});

Deno.test("apply() refuses copies that would grow the document past maxCopiedWeight", () => {
  // Each copy of the root doubles the document: 40 of them would need 2^40 values.
  const bomb = Array.from({ length: 40 }, (_, index) => ({
    op: "copy" as const,
    from: "",
    path: `/c${index}`,
  }));
  assert.throws(
    () => apply({ name: "x" }, bomb.slice(0, 16), { maxCopiedWeight: 10_000 }),
    (error) =>
      error instanceof PatchError && error.code === "patch_failed" &&
      /more than 10000/.test(error.data.reason),
  );
  // The default limit holds too, long before memory runs out.
  assert.throws(() => apply({ name: "x" }, bomb), PatchError);
  // Copies within the limit still apply.
  assert.deepEqual(apply({ a: [1, 2] }, bomb.slice(0, 2), { maxCopiedWeight: 10_000 }), {
    a: [1, 2],
    c0: { a: [1, 2] },
    c1: { a: [1, 2], c0: { a: [1, 2] } },
  });
});
