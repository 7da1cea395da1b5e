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
