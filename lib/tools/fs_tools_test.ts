import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../tests/fakes/child_env.ts";
import { ToolSession } from "./tool_session.ts";

async function session() {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const tools = await ToolSession.open({ root, bubblewrap: "off" });
  return {
    root,
    tools,
    async [Symbol.asyncDispose]() {
      tools.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("fs.write_text then fs.read_text round-trips text, absolute paths inside are fine", async () => {
  await using s = await session();
  const written = await s.tools.call({
    id: "w",
    tool: "fs.write_text",
    args: { path: "a/b/c.txt", text: "héllo ✓" },
  });
  assert.deepEqual(written, {
    id: "w",
    tool: "fs.write_text",
    ok: true,
    output: { path: "a/b/c.txt", bytes: 10, created: true },
    error: null,
  });
  const read = await s.tools.call({
    id: "r",
    tool: "fs.read_text",
    args: { path: join(s.root, "a/b/c.txt") },
  });
  assert.deepEqual(read.output, {
    path: "a/b/c.txt",
    text: "héllo ✓",
    bytes: 10,
    truncated: false,
  });
});

Deno.test("fs.write_text refuses an existing file unless overwrite is true", async () => {
  await using s = await session();
  await Deno.writeTextFile(join(s.root, "x.txt"), "old");
  const refused = await s.tools.call({
    id: "1",
    tool: "fs.write_text",
    args: { path: "x.txt", text: "new" },
  });
  assert.equal(refused.error?.code, "exists");
  assert.equal(await Deno.readTextFile(join(s.root, "x.txt")), "old");
  const replaced = await s.tools.call({
    id: "2",
    tool: "fs.write_text",
    args: { path: "x.txt", text: "new", overwrite: true },
  });
  assert.equal(replaced.ok, true);
  assert.equal(await Deno.readTextFile(join(s.root, "x.txt")), "new");
  const leftovers = [...Deno.readDirSync(s.root)].map((entry) => entry.name);
  assert.deepEqual(leftovers, ["x.txt"]);
});

Deno.test("fs.read_text cuts at max_bytes on a character boundary and says truncated", async () => {
  await using s = await session();
  await Deno.writeTextFile(join(s.root, "long.txt"), "ab✓cd");
  const result = await s.tools.call({
    id: "r",
    tool: "fs.read_text",
    args: { path: "long.txt", max_bytes: 3 },
  });
  assert.deepEqual(result.output, { path: "long.txt", text: "ab", bytes: 7, truncated: true });
  const exact = await s.tools.call({
    id: "r",
    tool: "fs.read_text",
    args: { path: "long.txt", max_bytes: 7 },
  });
  assert.deepEqual(exact.output, { path: "long.txt", text: "ab✓cd", bytes: 7, truncated: false });
});

Deno.test("fs.read_text reports a missing file, a folder and a FIFO as failures", async () => {
  await using s = await session();
  await Deno.mkdir(join(s.root, "dir"));
  const made = new Deno.Command("mkfifo", {
    args: [join(s.root, "pipe")],
    clearEnv: true,
    env: childEnv(),
    stderr: "piped",
  }).outputSync();
  assert.ok(made.success, `mkfifo: ${new TextDecoder().decode(made.stderr)}`);
  assert.equal(
    (await s.tools.call({ id: "1", tool: "fs.read_text", args: { path: "nope" } })).error?.code,
    "not_found",
  );
  assert.equal(
    (await s.tools.call({ id: "2", tool: "fs.read_text", args: { path: "dir" } })).error?.code,
    "io_error",
  );
  assert.equal(
    (await s.tools.call({ id: "3", tool: "fs.read_text", args: { path: "pipe" } })).error?.code,
    "io_error",
  );
});

Deno.test("fs.list_dir lists sorted entries with types, cut at max_entries", async () => {
  await using s = await session();
  await Deno.writeTextFile(join(s.root, "b.txt"), "bb");
  await Deno.writeTextFile(join(s.root, "a.txt"), "a");
  await Deno.mkdir(join(s.root, "c"));
  await Deno.symlink(join(s.root, "a.txt"), join(s.root, "d"));
  const all = await s.tools.call({ id: "l", tool: "fs.list_dir", args: {} });
  assert.deepEqual(all.output, {
    path: ".",
    entries: [
      { name: "a.txt", type: "file", size: 1 },
      { name: "b.txt", type: "file", size: 2 },
      { name: "c", type: "dir" },
      { name: "d", type: "symlink" },
    ],
    total: 4,
    truncated: false,
  });
  const cut = await s.tools.call({
    id: "l",
    tool: "fs.list_dir",
    args: { path: ".", max_entries: 2 },
  });
  assert.equal((cut.output as { entries: unknown[] }).entries.length, 2);
  assert.equal((cut.output as { truncated: boolean }).truncated, true);
});
