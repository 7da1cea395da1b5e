import { outcomeCode } from "../../tests/fakes/rejection.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { isInside, resolveInRoot } from "./resolve_in_root.ts";

async function layout() {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = join(base, "root");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.mkdir(join(base, "root-evil"));
  await Deno.writeTextFile(join(root, "sub", "a.txt"), "a");
  await Deno.writeTextFile(join(base, "secret.txt"), "secret");
  await Deno.symlink(join(base, "secret.txt"), join(root, "out-link"));
  await Deno.symlink(base, join(root, "out-dir"));
  await Deno.symlink(join(root, "sub", "a.txt"), join(root, "in-link"));
  await Deno.symlink(join(base, "missing"), join(root, "dangling-out"));
  return { base, root, [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }) };
}

Deno.test("isInside() treats a sibling prefix as outside", () => {
  assert.equal(isInside("/a/root", "/a/root"), true);
  assert.equal(isInside("/a/root", "/a/root/x"), true);
  assert.equal(isInside("/a/root", "/a/root-evil"), false);
  assert.equal(isInside("/a/root", "/a"), false);
});

Deno.test("resolveInRoot() accepts relative and absolute paths inside the root", async () => {
  await using dirs = await layout();
  assert.equal(await resolveInRoot(dirs.root, "sub/a.txt"), join(dirs.root, "sub", "a.txt"));
  assert.equal(
    await resolveInRoot(dirs.root, join(dirs.root, "sub/a.txt")),
    join(dirs.root, "sub", "a.txt"),
  );
  assert.equal(await resolveInRoot(dirs.root, "."), dirs.root);
  assert.equal(await resolveInRoot(dirs.root, "sub/../sub/a.txt"), join(dirs.root, "sub", "a.txt"));
  assert.equal(await resolveInRoot(dirs.root, "in-link"), join(dirs.root, "sub", "a.txt"));
});

Deno.test("resolveInRoot() refuses every way out", async () => {
  await using dirs = await layout();
  for (
    const input of [
      "../secret.txt",
      "sub/../../secret.txt",
      join(dirs.base, "secret.txt"),
      "/etc/passwd",
      "/proc/self/environ",
      join(dirs.base, "root-evil"),
      "../root-evil/x",
      "out-link",
      "out-dir/secret.txt",
      "out-dir",
    ]
  ) {
    assert.equal(await outcomeCode(resolveInRoot(dirs.root, input)), "path_escape", input);
  }
});

Deno.test("resolveInRoot() refuses creating through a link that points outside", async () => {
  await using dirs = await layout();
  assert.equal(
    await outcomeCode(resolveInRoot(dirs.root, "out-dir/new.txt", { allowMissing: true })),
    "path_escape",
  );
  assert.equal(
    await outcomeCode(resolveInRoot(dirs.root, "dangling-out", { allowMissing: true })),
    "path_escape",
  );
  assert.equal(
    await resolveInRoot(dirs.root, "new/deeper/file.txt", { allowMissing: true }),
    join(dirs.root, "new", "deeper", "file.txt"),
  );
});

Deno.test("resolveInRoot() refuses NUL bytes and empty paths, reports missing files", async () => {
  await using dirs = await layout();
  assert.equal(await outcomeCode(resolveInRoot(dirs.root, "a\0b")), "invalid_args");
  assert.equal(await outcomeCode(resolveInRoot(dirs.root, "")), "invalid_args");
  assert.equal(await outcomeCode(resolveInRoot(dirs.root, "nope.txt")), "not_found");
});
