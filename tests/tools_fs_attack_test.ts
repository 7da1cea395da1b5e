/**
 * Attacks on the file tools through the whole tool layer (`ToolSession`): each case
 * asserts the refusal and that nothing outside the root was read (the sentinel never
 * appears) or written (the tree outside the root is unchanged).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolSession } from "../lib/tools/mod.ts";
import { sandboxFixture, SENTINEL } from "./fakes/sandbox_fixture.ts";
import { childEnv } from "./fakes/child_env.ts";

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

/** Swaps `<root>/d` between a real folder and a symlink to `<base>/out` until `seconds` pass. */
/**
 * Swaps `<root>/d` between a real folder and a symlink to `out`, in a loop, for the seconds
 * given; tolerant of the folder a write re-creates while `d` is away.
 */
const SWAPPER = `
const [root, out, seconds] = Deno.args;
const end = Date.now() + Number(seconds) * 1000;
Deno.symlinkSync(out, root + "/d.link");
const swap = (from, to) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      Deno.renameSync(root + from, root + to);
      return;
    } catch {
      try {
        Deno.removeSync(root + to, { recursive: true });
      } catch {
        // a write is filling it: try again
      }
    }
  }
};
while (Date.now() < end) {
  swap("/d", "/d.real");
  swap("/d.link", "/d");
  swap("/d", "/d.link");
  swap("/d.real", "/d");
}
`;

/**
 * Runs `attack(running)` while another process swaps `<root>/d` with a symlink to `out` for
 * 3 s (killed after 10 s at the latest); `running()` turns false when the swapping stops.
 */
async function whileSwapping(
  root: string,
  out: string,
  attack: (running: () => boolean) => Promise<void>,
): Promise<void> {
  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["eval", SWAPPER, root, out, "3"],
    clearEnv: true,
    env: childEnv(),
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(swapper.stderr).text();
  let running = true;
  const status = swapper.status.finally(() => (running = false));
  const stop = () => {
    if (running) swapper.kill("SIGKILL");
  };
  const kill = setTimeout(stop, 10_000);
  try {
    await attack(() => running);
  } finally {
    clearTimeout(kill);
    stop();
    await status;
  }
  const { code } = await status;
  assert.ok(code === 0 || code === 137, await stderr);
}

Deno.test("fs tools never return a file outside the root while a folder and a symlink swap", async () => {
  await using fixture = await sandboxFixture();
  await Deno.mkdir(join(fixture.root, "d"));
  await Deno.writeTextFile(join(fixture.root, "d", "f.txt"), "inside\n");
  await Deno.mkdir(join(fixture.base, "out"));
  await Deno.writeTextFile(join(fixture.base, "out", "f.txt"), `${SENTINEL} swapped\n`);
  // A name only the outside folder has: a listing of it would show this name.
  await Deno.writeTextFile(join(fixture.base, "out", "outside-only.txt"), "");
  using session = await ToolSession.open({ root: fixture.root });
  const seen = { inside: 0, listed: 0, refused: 0 };
  await whileSwapping(fixture.root, join(fixture.base, "out"), async (running) => {
    for (let calls = 0; running() && calls < 20_000; calls++) {
      const read = await session.call({ id: "r", tool: "fs.read_text", args: { path: "d/f.txt" } });
      const list = await session.call({ id: "l", tool: "fs.list_dir", args: { path: "d" } });
      assert.ok(!JSON.stringify(read).includes(SENTINEL), `read outside: ${JSON.stringify(read)}`);
      const names = JSON.stringify(list);
      assert.ok(!names.includes("outside-only"), `listed outside: ${names}`);
      if ((read.output as { text?: string } | null)?.text === "inside\n") seen.inside++;
      else seen.refused++;
      if (list.ok) seen.listed++;
    }
  });
  console.log(`swap race: ${JSON.stringify(seen)}`);
  assert.ok(seen.inside >= 20, `the inside file was read only ${seen.inside} times`);
});

Deno.test("fs.write_text never writes outside the root while a folder and a symlink swap", async () => {
  await using fixture = await sandboxFixture();
  await Deno.mkdir(join(fixture.root, "d"));
  const out = join(fixture.base, "out");
  await Deno.mkdir(out);
  await Deno.writeTextFile(join(out, "f.txt"), `${SENTINEL} keep\n`);
  using session = await ToolSession.open({ root: fixture.root });
  const seen = { written: 0, refused: 0 };
  await whileSwapping(fixture.root, out, async (running) => {
    for (let calls = 0; running() && calls < 20_000; calls++) {
      const name = calls % 2 ? "f.txt" : `new-${calls}.txt`;
      const result = await session.call({
        id: "w",
        tool: "fs.write_text",
        args: { path: `d/${name}`, text: "inside\n", overwrite: true },
      });
      if (result.ok) seen.written++;
      else seen.refused++;
    }
  });
  console.log(`write race: ${JSON.stringify(seen)}`);
  const outside = [...Deno.readDirSync(out)].map((entry) => entry.name);
  assert.deepEqual(outside, ["f.txt"], `written outside the root: ${outside.join(", ")}`);
  assert.equal(await Deno.readTextFile(join(out, "f.txt")), `${SENTINEL} keep\n`);
  assert.ok(seen.written >= 20, `written only ${seen.written} times`);
});
