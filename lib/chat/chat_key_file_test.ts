import assert from "node:assert/strict";
import { join } from "node:path";
import { SynError } from "../core/mod.ts";
import { childEnv, killAfter } from "../../tests/fakes/child_env.ts";
import { openChatKeyFile } from "./chat_key_file.ts";

async function withFolders(
  fn: (folders: { config: string; state: string; root: string }) => void | Promise<void>,
) {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn({ config: join(root, "config"), state: join(root, "state"), root });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("openChatKeyFile() makes the key once, 0600 in a 0700 folder, and reads it after", async () => {
  await withFolders(({ config, state }) => {
    const first = openChatKeyFile(config, { stateDir: state });
    assert.equal(first.created, true);
    assert.equal(first.path, join(config, "syn", "chat.key"));
    assert.match(first.key, /^[0-9a-f]{64}$/);
    assert.equal(Deno.statSync(first.path).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(join(config, "syn")).mode! & 0o777, 0o700);
    const again = openChatKeyFile(config, { stateDir: state });
    assert.deepEqual(again, { ...first, created: false });
    assert.deepEqual(Deno.readDirSync(join(config, "syn")).toArray().map((entry) => entry.name), [
      "chat.key",
    ], "no temporary file is left");
  });
});

Deno.test("openChatKeyFile() keeps a key of the user's, tightening its mode", async () => {
  await withFolders(({ config, state }) => {
    Deno.mkdirSync(join(config, "syn"), { recursive: true });
    const path = join(config, "syn", "chat.key");
    Deno.writeTextFileSync(path, "a passphrase of my own, long enough to use\n", { mode: 0o644 });
    Deno.chmodSync(path, 0o644);
    const opened = openChatKeyFile(config, { stateDir: state });
    assert.equal(opened.key, "a passphrase of my own, long enough to use");
    assert.equal(opened.created, false);
    assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  });
});

Deno.test("openChatKeyFile() refuses a short key, a symlink, a key inside the state folder and no folder", async () => {
  await withFolders(({ config, state, root }) => {
    const refused = (configDir: string | undefined, pattern: RegExp) =>
      assert.throws(
        () => openChatKeyFile(configDir, { stateDir: state }),
        (error) =>
          error instanceof SynError && error.code === "chat_key" && pattern.test(error.message),
      );
    refused(undefined, /No config folder for the chat key/);
    refused(join(state, "cfg"), /inside the state folder/);
    // Through a symlink that leads into the state folder, too.
    Deno.mkdirSync(state, { recursive: true });
    Deno.symlinkSync(state, join(root, "alias"));
    refused(join(root, "alias", "cfg"), /inside the state folder/);
    Deno.mkdirSync(join(config, "syn"), { recursive: true });
    const path = join(config, "syn", "chat.key");
    Deno.writeTextFileSync(path, "short\n", { mode: 0o600 });
    refused(config, /32 or more characters/);
    Deno.removeSync(path);
    Deno.writeTextFileSync(join(root, "elsewhere.key"), "k".repeat(64), { mode: 0o600 });
    Deno.symlinkSync(join(root, "elsewhere.key"), path);
    refused(config, /not a regular file/);
  });
});

Deno.test("openChatKeyFile() from processes starting at once: one key for all", async () => {
  await withFolders(async ({ config, state }) => {
    const source = `import { openChatKeyFile } from ${
      JSON.stringify(new URL("./chat_key_file.ts", import.meta.url).href)
    };\nconsole.log(openChatKeyFile(${JSON.stringify(config)}, { stateDir: ${
      JSON.stringify(state)
    } }).key);`;
    const runs = await Promise.all(Array.from({ length: 6 }, async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["eval", "--no-check", source],
        clearEnv: true,
        env: childEnv(),
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const cancel = killAfter(child);
      const output = await child.output();
      cancel();
      const decoder = new TextDecoder();
      assert.equal(output.code, 0, decoder.decode(output.stderr));
      return decoder.decode(output.stdout).trim();
    }));
    assert.equal(new Set(runs).size, 1, `keys: ${runs.join(", ")}`);
    assert.equal(runs[0], Deno.readTextFileSync(join(config, "syn", "chat.key")).trim());
  });
});
