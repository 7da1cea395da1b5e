/**
 * Attacks on the file tools through the whole tool layer (`ToolSession`): each case
 * asserts the refusal and that nothing outside the root was read (the sentinel never
 * appears) or written (the tree outside the root is unchanged).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolSession } from "../lib/tools/mod.ts";
import { sandboxFixture, SENTINEL } from "./fakes/sandbox_fixture.ts";

interface Attack {
  name: string;
  tool: string;
  args: (fixture: { base: string; root: string }) => Record<string, unknown>;
  code: string;
}

const ATTACKS: Attack[] = [
  {
    name: "read through ..",
    tool: "fs.read_text",
    args: () => ({ path: "../secret.txt" }),
    code: "path_escape",
  },
  {
    name: "read through nested ..",
    tool: "fs.read_text",
    args: () => ({ path: "docs/../../secret.txt" }),
    code: "path_escape",
  },
  {
    name: "read an absolute path outside",
    tool: "fs.read_text",
    args: ({ base }) => ({ path: join(base, "secret.txt") }),
    code: "path_escape",
  },
  {
    name: "read /etc/passwd",
    tool: "fs.read_text",
    args: () => ({ path: "/etc/passwd" }),
    code: "path_escape",
  },
  {
    name: "read /proc/self/environ",
    tool: "fs.read_text",
    args: () => ({ path: "/proc/self/environ" }),
    code: "path_escape",
  },
  {
    name: "read the sibling prefix folder",
    tool: "fs.read_text",
    args: ({ root }) => ({ path: `${root}-evil/secret.txt` }),
    code: "path_escape",
  },
  {
    name: "read a symlink to a file outside",
    tool: "fs.read_text",
    args: () => ({ path: "link-out.txt" }),
    code: "path_escape",
  },
  {
    name: "read through a symlinked folder",
    tool: "fs.read_text",
    args: () => ({ path: "dir-out/secret.txt" }),
    code: "path_escape",
  },
  {
    name: "read a path with a NUL byte",
    tool: "fs.read_text",
    args: () => ({ path: "hello.txt\u0000../../secret.txt" }),
    code: "invalid_args",
  },
  {
    name: "list the parent",
    tool: "fs.list_dir",
    args: () => ({ path: ".." }),
    code: "path_escape",
  },
  {
    name: "list a symlinked folder outside",
    tool: "fs.list_dir",
    args: () => ({ path: "dir-out" }),
    code: "path_escape",
  },
  { name: "list /", tool: "fs.list_dir", args: () => ({ path: "/" }), code: "path_escape" },
  {
    name: "list the sibling prefix folder",
    tool: "fs.list_dir",
    args: ({ root }) => ({ path: `${root}-evil` }),
    code: "path_escape",
  },
  {
    name: "write through ..",
    tool: "fs.write_text",
    args: () => ({ path: "../created-by-attack.txt", text: "x" }),
    code: "path_escape",
  },
  {
    name: "write an absolute path outside",
    tool: "fs.write_text",
    args: ({ base }) => ({ path: join(base, "created-by-attack.txt"), text: "x" }),
    code: "path_escape",
  },
  {
    name: "overwrite a symlink to a file outside",
    tool: "fs.write_text",
    args: () => ({ path: "link-out.txt", text: "pwned", overwrite: true }),
    code: "path_escape",
  },
  {
    name: "create through a dangling symlink",
    tool: "fs.write_text",
    args: () => ({ path: "dangling-out.txt", text: "pwned" }),
    code: "path_escape",
  },
  {
    name: "write into a symlinked folder",
    tool: "fs.write_text",
    args: () => ({ path: "dir-out/created-by-attack.txt", text: "x" }),
    code: "path_escape",
  },
  {
    name: "write into the sibling prefix folder",
    tool: "fs.write_text",
    args: ({ root }) => ({ path: `${root}-evil/created-by-attack.txt`, text: "x" }),
    code: "path_escape",
  },
  {
    name: "args with a prototype key",
    tool: "fs.read_text",
    args: () => JSON.parse('{"path":"hello.txt","__proto__":{"path":"../secret.txt"}}'),
    code: "invalid_args",
  },
  {
    name: "args of the wrong type",
    tool: "fs.read_text",
    args: () => ({ path: ["../secret.txt"] }),
    code: "invalid_args",
  },
  {
    name: "max_bytes out of range",
    tool: "fs.read_text",
    args: () => ({ path: "hello.txt", max_bytes: 1e12 }),
    code: "invalid_args",
  },
  {
    name: "an unknown tool",
    tool: "fs.delete",
    args: () => ({ path: "hello.txt" }),
    code: "unknown_tool",
  },
];

for (const attack of ATTACKS) {
  Deno.test(`fs attack is refused: ${attack.name}`, async () => {
    await using fixture = await sandboxFixture();
    const before = await fixture.outsideSnapshot();
    using session = await ToolSession.open({ root: fixture.root, bubblewrap: "off" });
    const result = await session.call({ id: "a1", tool: attack.tool, args: attack.args(fixture) });
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.equal(result.error?.code, attack.code, JSON.stringify(result));
    assert.equal(result.output, null);
    assert.ok(!JSON.stringify(result).includes(SENTINEL), "the sentinel leaked");
    assert.equal(await fixture.outsideSnapshot(), before, "something outside the root changed");
  });
}

Deno.test("fs attack: hostile call shapes become results, never exceptions", async () => {
  await using fixture = await sandboxFixture();
  using session = await ToolSession.open({ root: fixture.root, bubblewrap: "off" });
  const shapes: unknown[] = [null, 42, "fs.read_text", [], { tool: "fs.read_text", args: {} }, {
    id: "x",
    tool: "fs.read_text",
    args: "../secret.txt",
  }, { id: "x", tool: { toString: () => "fs.read_text" }, args: {} }];
  for (const shape of shapes) {
    const result = await session.call(shape);
    assert.equal(result.ok, false, JSON.stringify(shape));
    assert.equal(result.error?.code, "invalid_args", JSON.stringify(result));
  }
});

Deno.test("fs attack: deeply nested args are refused without a crash", async () => {
  await using fixture = await sandboxFixture();
  using session = await ToolSession.open({ root: fixture.root, bubblewrap: "off" });
  const deep = JSON.parse(`{"path":"hello.txt","x":${"[".repeat(5000)}${"]".repeat(5000)}}`);
  const result = await session.call({ id: "d", tool: "fs.read_text", args: deep });
  assert.equal(result.error?.code, "invalid_args");
});
