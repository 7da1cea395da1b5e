import assert from "node:assert/strict";
import { CONFORMANCE_MCP, sharedMissing, sharedPath } from "../../tests/fakes/shared.ts";
import { SynError } from "../core/mod.ts";
import { apply, diff } from "./mod.ts";

Deno.test("diff() matches the MCP reference on the conformance diff_assets case (inline)", () => {
  const base = { a: 1, b: [1], c: { d: 1 } };
  const next = { a: 2, b: [1, 2], e: "x/y", c: {} };
  assert.deepEqual(diff(base, next), [
    { op: "replace", path: "/a", value: 2 },
    { op: "replace", path: "/b", value: [1, 2] },
    { op: "remove", path: "/c/d" },
    { op: "add", path: "/e", value: "x/y" },
  ]);
});

Deno.test({
  name: "diff() reproduces every diff_assets response recorded from the reference adapter",
  ignore: sharedMissing(CONFORMANCE_MCP),
  fn() {
    const folder = sharedPath(CONFORMANCE_MCP);
    const lines = (file: string) =>
      Deno.readTextFileSync(`${folder}/${file}`).split("\n").filter((line) => line.trim());
    // The recorded requests include deliberately malformed lines; only JSON ones matter here.
    const requests = lines("mcp-v0.2.3.requests.ndjson").filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const responses = new Map(
      lines("mcp-v0.2.3.jsonschema-4.26.responses.ndjson").map((line) => {
        const response = JSON.parse(line);
        return [response.id, response];
      }),
    );
    const cases = requests
      .filter((request) => request.method === "diff_assets")
      .map((request) => ({ params: request.params, result: responses.get(request.id).result }));
    for (const line of lines("upstream-golden.jsonl")) {
      const golden = JSON.parse(line);
      if (golden.request?.method !== "diff_assets") continue;
      cases.push({ params: golden.request.params, result: golden.response.result });
    }
    assert.equal(cases.length, 2, "expected the recorded case and the upstream golden case");
    for (const { params, result } of cases) {
      assert.equal(result.ok, true);
      assert.deepEqual(diff(params.base, params.new), result.patch);
      assert.deepEqual(apply(params.base, result.patch), params.new);
    }
  },
});

Deno.test("diff() of equal documents is empty whatever the key order and -0", () => {
  assert.deepEqual(diff({ a: 1, b: { c: [1, { d: 0 }] } }, { b: { c: [1, { d: -0 }] }, a: 1 }), []);
  assert.deepEqual(diff([1, 2], [1, 2]), []);
  assert.deepEqual(diff(null, null), []);
  assert.deepEqual(diff("x", "x"), []);
});

Deno.test("diff() replaces the root when it is not an object on both sides", () => {
  assert.deepEqual(diff({ a: 1 }, [1]), [{ op: "replace", path: "", value: [1] }]);
  assert.deepEqual(diff([1], [1, 2]), [{ op: "replace", path: "", value: [1, 2] }]);
  assert.deepEqual(diff(1, "1"), [{ op: "replace", path: "", value: "1" }]);
  assert.deepEqual(diff(null, {}), [{ op: "replace", path: "", value: {} }]);
});

Deno.test("diff() replaces arrays wholesale with one operation", () => {
  assert.deepEqual(diff({ list: [1, { a: 1 }, 3] }, { list: [1, { a: 2 }, 3] }), [
    { op: "replace", path: "/list", value: [1, { a: 2 }, 3] },
  ]);
  assert.deepEqual(diff({ list: [{ a: [1] }] }, { list: [{ a: [1] }] }), []);
});

Deno.test("diff() treats a change between object and non-object as a replace", () => {
  assert.deepEqual(
    diff({ a: { b: 1 }, c: 1, d: null, e: [] }, { a: 1, c: { x: 1 }, d: {}, e: {} }),
    [
      { op: "replace", path: "/a", value: 1 },
      { op: "replace", path: "/c", value: { x: 1 } },
      { op: "replace", path: "/d", value: {} },
      { op: "replace", path: "/e", value: {} },
    ],
  );
});

Deno.test("diff() escapes ~ and / in pointers and sorts the escaped strings", () => {
  const patch = diff({ "a/b": 1, "m~n": 1, a: { b: 1 } }, { "a/b": 2, "m~n": 2, a: { b: 2 } });
  assert.deepEqual(patch, [
    { op: "replace", path: "/a/b", value: 2 },
    { op: "replace", path: "/a~1b", value: 2 },
    { op: "replace", path: "/m~0n", value: 2 },
  ]);
});

Deno.test("diff() sorts by code point as Python does, not by UTF-16 unit", () => {
  // U+FFFF sorts before U+1F600 by code point; by UTF-16 units the pair D83D DE00 comes first.
  const patch = diff({}, { "\u{1F600}": 1, "\uFFFF": 2, "\uE000": 3, z: 4, "": 5 });
  assert.deepEqual(
    patch.map((operation) => operation.path),
    ["/", "/z", "/\uE000", "/\uFFFF", "/\u{1F600}"],
  );
});

Deno.test("diff() orders nested paths after their parent's siblings by pointer text", () => {
  const base = { a: { x: 1, y: 1 }, "a b": 1, ab: 1 };
  const next = { a: { x: 2 }, "a b": 2, ab: 2, "a-": 0 };
  assert.deepEqual(diff(base, next).map(({ op, path }) => `${op} ${path}`), [
    "replace /a b",
    "add /a-",
    "replace /a/x",
    "remove /a/y",
    "replace /ab",
  ]);
});

Deno.test("diff() copies values instead of sharing them with next, and leaves inputs alone", () => {
  const base = { keep: { a: 1 }, change: [1] };
  const next = { keep: { a: 1 }, change: [2], added: { deep: { v: 1 } } };
  const baseText = JSON.stringify(base);
  const nextText = JSON.stringify(next);
  const patch = diff(base, next);
  assert.equal(JSON.stringify(base), baseText);
  assert.equal(JSON.stringify(next), nextText);
  next.added.deep.v = 99;
  next.change.push(3);
  assert.deepEqual(patch, [
    { op: "add", path: "/added", value: { deep: { v: 1 } } },
    { op: "replace", path: "/change", value: [2] },
  ]);
});

Deno.test("diff() handles __proto__ keys as plain data", () => {
  const base = JSON.parse('{"__proto__": {"x": 1}, "k": 1}');
  const next = JSON.parse('{"__proto__": {"x": 2}, "k": 1, "n": {"__proto__": [1]}}');
  const patch = diff(base, next);
  assert.deepEqual(patch, [
    { op: "replace", path: "/__proto__/x", value: 2 },
    { op: "add", path: "/n", value: JSON.parse('{"__proto__": [1]}') },
  ]);
  const added = patch[1] as { value: Record<string, unknown> };
  assert.equal(Object.getPrototypeOf(added.value), Object.prototype);
  assert.ok(Object.hasOwn(added.value, "__proto__"));
  assert.deepEqual(diff(base, JSON.parse('{"k": 1}')), [{ op: "remove", path: "/__proto__" }]);
  assert.equal(JSON.stringify(apply(base, patch)), JSON.stringify(next));
});

function nest(depth: number, leaf: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let level = 1; level < depth; level++) {
    const child: Record<string, unknown> = {};
    current.k = child;
    current = child;
  }
  current.leaf = leaf;
  return root;
}

Deno.test("diff() survives 10,000 levels of nesting", () => {
  const depth = 10_000;
  const patch = diff(nest(depth, 1), nest(depth, 2));
  assert.equal(patch.length, 1);
  assert.equal(patch[0].op, "replace");
  assert.equal(patch[0].path, "/k".repeat(depth - 1) + "/leaf");
  assert.deepEqual(diff(nest(depth, [1]), nest(depth, [1])), []);
  // A deep value is copied into the patch without recursion, too.
  const added = diff({}, { deep: nest(depth, [[]]) });
  assert.equal(added.length, 1);
  const deepArray = (leaf: unknown) => {
    let value: unknown = { leaf };
    for (let level = 0; level < depth; level++) value = [value];
    return value;
  };
  assert.deepEqual(diff({ a: deepArray(1) }, { a: deepArray(1) }), []);
  assert.equal(diff({ a: deepArray(1) }, { a: deepArray(2) })[0].path, "/a");
});

/** Two documents nested `depth` levels, a changed leaf at every level: paths grow as depth². */
function comb(depth: number, leaf: number): unknown {
  let node: Record<string, unknown> = { b: leaf };
  for (let level = 1; level < depth; level++) node = { b: leaf, a: node };
  return node;
}

Deno.test("diff() refuses a patch whose paths would pass maxPathChars, before building them all", () => {
  const base = comb(3_000, 1);
  const next = comb(3_000, 2);
  // 3,000 replaces with paths of up to 6,000 characters: about 9 million characters in all.
  assert.throws(
    () => diff(base, next, { maxPathChars: 1_000_000 }),
    (error) => error instanceof SynError && error.code === "payload_too_large",
  );
  const small = diff(comb(3, 1), comb(3, 2), { maxPathChars: 1_000 });
  assert.deepEqual(small.map((operation) => operation.path), ["/a/a/b", "/a/b", "/b"]);
});
