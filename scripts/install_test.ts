import assert from "node:assert/strict";
import { join } from "node:path";
import { inNpxCache, launcherText } from "./install.ts";

/** Runs `launcher --version` with `sh` in an environment holding only `env`. */
async function runLauncher(launcher: string, env: Record<string, string>) {
  const output = await new Deno.Command("/bin/sh", {
    args: [launcher, "--version"],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  return new TextDecoder().decode(output.stdout).trim().split("\n");
}

/** A fake program at `path` that prints `$DENO_DIR` and then its arguments, one a line. */
async function writeEcho(path: string): Promise<void> {
  await Deno.writeTextFile(
    path,
    '#!/bin/sh\necho "DENO_DIR=$DENO_DIR"\nfor a in "$@"; do echo "$a"; done\n',
    { mode: 0o755 },
  );
  await Deno.chmod(path, 0o755);
}

Deno.test("the launcher pins the install's DENO_DIR for a caller with a minimal environment", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_install_" });
  try {
    const deno = join(dir, "deno");
    await writeEcho(deno);
    const launcher = join(dir, "syn");
    const text = launcherText("/checkout", { deno, version: "2.9.6", denoDir: "/cache/it's" });
    await Deno.writeTextFile(launcher, text);
    const lines = await runLauncher(launcher, { PATH: "/usr/bin:/bin" });
    assert.equal(lines[0], "DENO_DIR=/cache/it's");
    assert.deepEqual(lines.slice(-3), ["/checkout/deno.json", "/checkout/main.ts", "--version"]);
    // A DENO_DIR the caller sets wins over the pinned one.
    const own = await runLauncher(launcher, { PATH: "/usr/bin:/bin", DENO_DIR: "/mine" });
    assert.equal(own[0], "DENO_DIR=/mine");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a launcher whose Deno was in the npx cache runs npx once that cache is cleaned", async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_install_" });
  try {
    const cached = join(dir, ".npm", "_npx", "7a40", "node_modules", "deno", "deno");
    assert.equal(inNpxCache(cached), true);
    assert.equal(inNpxCache("/usr/local/bin/deno"), false);
    await Deno.mkdir(join(dir, "bin"));
    await writeEcho(join(dir, "bin", "npx"));
    const launcher = join(dir, "syn");
    const text = launcherText("/checkout", { deno: cached, version: "2.9.6", denoDir: "/cache" });
    await Deno.writeTextFile(launcher, text);
    // The cached Deno is gone (never written here): the launcher asks npx for the version.
    const lines = await runLauncher(launcher, { PATH: `${join(dir, "bin")}:/usr/bin:/bin` });
    assert.deepEqual(lines.slice(0, 5), [
      "DENO_DIR=/cache",
      "-y",
      "--prefer-offline",
      "deno@2.9.6",
      "run",
    ]);
    assert.equal(lines.at(-1), "--version");
    // While it exists, the cached Deno runs directly.
    await Deno.mkdir(join(cached, ".."), { recursive: true });
    await writeEcho(cached);
    const direct = await runLauncher(launcher, { PATH: `${join(dir, "bin")}:/usr/bin:/bin` });
    assert.deepEqual(direct.slice(0, 2), ["DENO_DIR=/cache", "run"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
