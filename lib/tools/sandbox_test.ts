import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "./sandbox.ts";
import { ToolFailure } from "./tool_failure.ts";

async function rejection(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolFailure, String(error));
    return error;
  }
  assert.fail("expected a rejection");
}

Deno.test("Sandbox denies reads outside its root even when asked directly", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = join(base, "root");
  await Deno.mkdir(root);
  await Deno.writeTextFile(join(base, "secret.txt"), "SENTINEL-outside");
  using sandbox = await Sandbox.start({ root, net: [], run: [] });
  const failure = await rejection(
    sandbox.request("read_text", { root, path: join(base, "secret.txt"), maxBytes: 100 }, {
      timeoutMs: 5000,
    }),
  );
  assert.match(failure.code, /path_escape|not_allowed/);
  assert.doesNotMatch(failure.message, /SENTINEL/);
  await Deno.remove(base, { recursive: true });
});

/** This process's open descriptors on the file's inode (the worker's are ours too). */
function descriptorsOn(path: string): number {
  const { dev, ino } = Deno.statSync(path);
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      const info = Deno.statSync(`/proc/self/fd/${entry.name}`);
      if (info.dev === dev && info.ino === ino) count++;
    } catch {
      // closed while looked at
    }
  }
  return count;
}

Deno.test("Sandbox gives out a read only when the descriptor it read through lies inside the request's root, and closes it either way", async () => {
  // The worker may read the whole sandbox root; the request names a narrower root. What it
  // read of a file outside that root must not come back, and no descriptor may stay open.
  const base = await Deno.realPath(await Deno.makeTempDir());
  const narrow = join(base, "narrow");
  await Deno.mkdir(narrow);
  await Deno.writeTextFile(join(base, "beside.txt"), "SENTINEL-beside");
  await Deno.writeTextFile(join(narrow, "in.txt"), "inside");
  using sandbox = await Sandbox.start({ root: base, net: [], run: [] });
  const read = (path: string) =>
    sandbox.request("read_text", { root: narrow, path, maxBytes: 100 }, { timeoutMs: 5000 });
  const failure = await rejection(read(join(base, "beside.txt")));
  assert.equal(failure.code, "path_escape");
  assert.doesNotMatch(failure.message, /SENTINEL/);
  assert.deepEqual(await read(join(narrow, "in.txt")), {
    text: "inside",
    bytes: 6,
    truncated: false,
  });
  // The worker closes a descriptor when the supervisor releases it, one message later.
  const open = () =>
    descriptorsOn(join(base, "beside.txt")) + descriptorsOn(join(narrow, "in.txt"));
  for (let turn = 0; turn < 50 && open() > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(open(), 0);
  await Deno.remove(base, { recursive: true });
});

Deno.test("Sandbox denies writes outside its root and symlinks it did not check", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir());
  const root = join(base, "root");
  await Deno.mkdir(root);
  await Deno.symlink(join(base, "target.txt"), join(root, "link.txt"));
  using sandbox = await Sandbox.start({ root, net: [], run: [] });
  await Deno.symlink(base, join(root, "out"));
  const refused = async (write: Promise<unknown>, code: string) => {
    assert.equal((await rejection(write)).code, code);
  };
  await assert.rejects(sandbox.writeText("../evil.txt", "x", false), ToolFailure);
  await refused(sandbox.writeText("link.txt", "x", true), "path_escape");
  await refused(sandbox.writeText("out/evil.txt", "x", false), "path_escape");
  await refused(sandbox.writeText("out/new/evil.txt", "x", false), "path_escape");
  const written = await sandbox.writeText("in/side.txt", "x", false);
  assert.deepEqual(written, { bytes: 1, created: true });
  await refused(sandbox.writeText("in/side.txt", "y", false), "exists");
  assert.equal(await Deno.readTextFile(join(root, "in", "side.txt")), "x");
  await assert.rejects(Deno.stat(join(base, "evil.txt")), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(join(base, "target.txt")), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(join(base, "new")), Deno.errors.NotFound);
  await Deno.remove(base, { recursive: true });
});

Deno.test("Sandbox denies network and programs it was not granted", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  let hits = 0;
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("hi");
  });
  using sandbox = await Sandbox.start({ root, net: [], run: [] });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const net = await rejection(
    sandbox.request("fetch", { url, timeoutMs: 2000, maxBytes: 100, headers: {} }, {
      timeoutMs: 5000,
    }),
  );
  assert.equal(net.code, "not_allowed");
  const run = await rejection(sandbox.request("spawn", {
    argv: ["/bin/echo", "x"],
    cwd: root,
    env: {},
    timeoutMs: 2000,
    maxOutputBytes: 100,
  }, { timeoutMs: 5000 }));
  assert.equal(run.code, "not_allowed");
  assert.equal(hits, 0);
  await Deno.remove(root, { recursive: true });
});

Deno.test("Sandbox past its deadline is killed and refuses further requests", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  using sandbox = await Sandbox.start({ root, net: [], run: ["/bin/sleep"] });
  let pid = 0;
  const failure = await rejection(sandbox.request("spawn", {
    argv: ["/bin/sleep", "30"],
    cwd: root,
    env: {},
    timeoutMs: 60_000,
    maxOutputBytes: 100,
  }, { timeoutMs: 300, onSpawn: (spawned) => (pid = spawned) }));
  assert.equal(failure.code, "timeout");
  assert.ok(pid > 0);
  assert.equal(sandbox.dead, true);
  // The process group was killed with the worker: give the kernel a moment to reap it.
  for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(processAlive(pid), false, `process ${pid} still runs`);
  const closed = await rejection(sandbox.request("list_dir", {}, { timeoutMs: 1000 }));
  assert.equal(closed.code, "sandbox_unavailable");
  await Deno.remove(root, { recursive: true });
});

function processAlive(pid: number): boolean {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

Deno.test("a sandbox worker whose permissions do not bind runs no request, not even one sent before its proof", async () => {
  // Started with all of this test's permissions: its probe must fail, and the request
  // already waiting when it does must be refused, not run.
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(join(root, "a.txt"), "SENTINEL-unproved");
  const worker = new Worker(new URL("./_sandbox_worker.ts", import.meta.url), { type: "module" });
  const messages: unknown[] = [];
  const two = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(messages)}`)), 10_000);
    worker.onmessage = (event) => {
      messages.push(event.data);
      if (messages.length === 2) {
        clearTimeout(timer);
        resolve();
      }
    };
  });
  worker.postMessage({
    seq: 1,
    op: "read_text",
    params: { root, path: join(root, "a.txt"), maxBytes: 100 },
  });
  worker.postMessage({ prove: true });
  try {
    await two;
  } finally {
    worker.terminate();
  }
  assert.deepEqual(messages[1], { ready: true, enforced: false });
  const refusal = messages[0] as { seq: number; ok: boolean; code: string };
  assert.deepEqual([refusal.seq, refusal.ok, refusal.code], [1, false, "sandbox_unavailable"]);
  assert.doesNotMatch(JSON.stringify(messages), /SENTINEL/);
  await Deno.remove(root, { recursive: true });
});
