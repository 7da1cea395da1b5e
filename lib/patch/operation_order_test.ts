import assert from "node:assert/strict";
import { compareOperations } from "./diff.ts";
import type { DiffOperation } from "./patch_operation.ts";

Deno.test("compareOperations() orders one path's operations remove < add < replace, after the path", () => {
  const operations: DiffOperation[] = [
    { op: "replace", path: "/a", value: 1 },
    { op: "add", path: "/b", value: 2 },
    { op: "add", path: "/a", value: 3 },
    { op: "remove", path: "/a" },
    { op: "remove", path: "" },
  ];
  assert.deepEqual(
    [...operations].sort(compareOperations).map((operation) => `${operation.op} ${operation.path}`),
    ["remove ", "remove /a", "add /a", "replace /a", "add /b"],
  );
});
