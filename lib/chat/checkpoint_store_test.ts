import assert from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../../tests/fakes/child_env.ts";
import { condense, newCheckpoint } from "./checkpoint.ts";
import { CheckpointStore } from "./checkpoint_store.ts";

Deno.test("CheckpointStore writes revision + 1 each time and reads it back", async () => {
  const dir = await Deno.makeTempDir();
  const store = new CheckpointStore(dir);
  let checkpoint = newCheckpoint("s1", 1);
  checkpoint = await store.save(checkpoint, 2);
  checkpoint = await store.save({
    ...checkpoint,
    recent_messages: [{ role: "user", content: "hi", timestamp: 2 }],
  }, 3);
  assert.equal(checkpoint.revision, 2);
  assert.deepEqual(await store.load("s1"), checkpoint);
  assert.deepEqual(await store.sessions(), ["s1"]);
  assert.equal(await store.load("other"), undefined);
  await assert.rejects(store.save({ ...checkpoint, revision: 0 }, 4), /changed since/);
  assert.throws(() => store.folder("../evil"), /session id/);
  assert.deepEqual([...Deno.readDirSync(join(dir, "sessions", "s1"))].map((entry) => entry.name), [
    "checkpoint.json",
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("CheckpointStore with a key encrypts at rest and refuses a wrong key", async () => {
  const dir = await Deno.makeTempDir();
  const store = new CheckpointStore(dir, { key: "correct horse battery staple" });
  const saved = await store.save({
    ...newCheckpoint("s2", 1),
    recent_messages: [{ role: "user", content: "my secret plan", timestamp: 1 }],
  }, 2);
  const raw = await Deno.readTextFile(join(dir, "sessions", "s2", "checkpoint.json"));
  assert.ok(!raw.includes("secret plan"), "content is readable on disk");
  assert.deepEqual(await store.load("s2"), saved);
  await assert.rejects(new CheckpointStore(dir, { key: "wrong" }).load("s2"), /not the key/);
  await assert.rejects(new CheckpointStore(dir).load("s2"), /SYN_CHAT_KEY/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("condense() keeps the newest messages and folds the rest into the summary", () => {
  const checkpoint = newCheckpoint("s3", 0);
  checkpoint.recent_messages = Array.from(
    { length: 50 },
    (
      _,
      i,
    ) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}`, timestamp: i } as const),
  );
  const smart = condense(checkpoint, "condense_smart");
  assert.equal(smart.recent_messages.length, 12);
  assert.match(
    smart.state.episode_summary,
    /condensed 38 earlier messages; user asked: message 0 \| message 2/,
  );
  const small = { ...checkpoint, recent_messages: checkpoint.recent_messages.slice(0, 20) };
  assert.equal(condense(small, "condense_smart"), small);
  assert.equal(condense(small, "condense_now").recent_messages.length, 12);
});

Deno.test("a checkpoint survives kill -9 during writes: the file is always a whole revision", async () => {
  const dir = await Deno.makeTempDir();
  const script = join(dir, "writer.ts");
  await Deno.writeTextFile(
    script,
    `
    import { CheckpointStore } from ${
      JSON.stringify(new URL("./checkpoint_store.ts", import.meta.url).href)
    };
    import { newCheckpoint } from ${
      JSON.stringify(new URL("./checkpoint.ts", import.meta.url).href)
    };
    const store = new CheckpointStore(Deno.args[0]);
    let checkpoint = (await store.load("k")) ?? newCheckpoint("k", 0);
    const big = "x".repeat(200_000);
    console.log("ready");
    while (true) checkpoint = await store.save({ ...checkpoint, recent_messages: [{ role: "user", content: big + checkpoint.revision, timestamp: 1 }] }, 1);
  `,
  );
  const store = new CheckpointStore(join(dir, "state"));
  for (let round = 0; round < 5; round++) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, join(dir, "state")],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 50 + round * 37));
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    const loaded = await store.load("k");
    assert.ok(loaded, "no checkpoint after the kill");
    assert.ok(
      loaded.recent_messages[0].content.endsWith(String(loaded.revision - 1)),
      "torn or mixed checkpoint",
    );
  }
  await Deno.remove(dir, { recursive: true });
});
