/**
 * Running out of file descriptors does not stop `syn chat serve`: under a lowered
 * `ulimit -n`, more idle TCP connections than the limit (then closed) make the runtime's
 * accept fail with EMFILE; the server keeps listening and answers once they are gone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SELF_COMMAND } from "./fakes/cli_io.ts";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { waitUntil } from "./fakes/wait_until.ts";

const LIMIT = 256;

async function readReady(path: string): Promise<{ port: number; url: string }> {
  let ready: { port: number; url: string } | undefined;
  await waitUntil(
    async () => {
      ready = await Deno.readTextFile(path).then(JSON.parse, () => undefined);
      return ready !== undefined;
    },
    "chat serve to write its ready file",
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  return ready!;
}

async function healthStatus(url: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    try {
      const response = await fetch(new URL("/health", url), { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      return response.status;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return 0;
}

Deno.test({
  name: "syn chat serve outlives EMFILE: idle connections past ulimit -n, then a request works",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    const readyFile = join(dir, "ready.json");
    const command = [...SELF_COMMAND, "chat", "serve", "--port", "0", "--root", dir]
      .concat(["--ready-file", readyFile, "--engine", "template"])
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
    const child = new Deno.Command("bash", {
      args: ["-c", `ulimit -n ${LIMIT} && exec ${command}`],
      clearEnv: true,
      env: childEnv(),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const cancel = killAfter(child, 90_000);
    let log = "";
    const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (text) => void (log += text) }),
    );
    let status = 0;
    try {
      const ready = await readReady(readyFile);
      const conns: Deno.Conn[] = [];
      for (let i = 0; i < LIMIT + 60; i++) {
        try {
          conns.push(await Deno.connect({ hostname: "127.0.0.1", port: ready.port }));
        } catch {
          break; // refused while the listener reopens
        }
      }
      // The runtime's accept has failed for want of a descriptor, and the server said so.
      await waitUntil(
        () => /chat:listener_error .*Too many open files/.test(log),
        "the listener's EMFILE",
      ).catch((error) => {
        throw new Error(`${error.message}; the log:\n${log}`);
      });
      for (const conn of conns) conn.close();
      status = await healthStatus(ready.url);
    } finally {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      cancel();
      await reading;
    }
    assert.equal(status, 401, `the server stopped answering:\n${log}`);
    assert.match(log, /chat:listener_error .*Too many open files/, log);
    await Deno.remove(dir, { recursive: true });
  },
});
