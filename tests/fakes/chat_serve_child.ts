/**
 * `syn chat serve` as a child process, for tests and scripts that measure what the
 * process holds: its port and token from the ready file, and its `/proc` figures (Linux).
 */
import { join } from "node:path";
import { SELF_COMMAND } from "./cli_io.ts";
import { childEnv, killAfter } from "./child_env.ts";

/** What `/proc/<pid>` says a process holds. */
export interface ProcessFigures {
  /** Resident memory, in KiB (`VmRSS`). */
  rssKib: number;
  threads: number;
  descriptors: number;
}

/** Reads `/proc/<pid>/status` and counts `/proc/<pid>/fd`. */
export function processFigures(pid: number): ProcessFigures {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1]);
  return {
    rssKib: field("VmRSS"),
    threads: field("Threads"),
    descriptors: [...Deno.readDirSync(`/proc/${pid}/fd`)].length,
  };
}

/** A running `syn chat serve`; disposing stops it (SIGTERM, then SIGKILL) and removes `dir`. */
export interface ServedChat extends AsyncDisposable {
  child: Deno.ChildProcess;
  port: number;
  token: string;
  /** `http://127.0.0.1:PORT` */
  httpUrl: string;
  /** `ws://127.0.0.1:PORT` */
  wsUrl: string;
  /** The sandbox root its tools work in. */
  root: string;
  /** Its standard error so far. */
  log(): string;
}

/**
 * Starts `syn chat serve` on a free port with `args` added (`--engine template` unless they
 * name one) and `env` in its environment, its sandbox root a fresh temporary folder (also
 * `root`); waits at most 20 s for its ready file.
 */
export async function startChatServe(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<ServedChat> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn-chat-serve-" }));
  const readyFile = join(dir, "ready.json");
  await Deno.mkdir(join(dir, "root"));
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...SELF_COMMAND.slice(1), "chat", "serve", "--port", "0"]
      .concat(args.includes("--engine") ? [] : ["--engine", "template"])
      .concat(["--root", join(dir, "root"), "--ready-file", readyFile, ...args]),
    clearEnv: true,
    env: childEnv(env),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const cancel = killAfter(child);
  let log = "";
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (log += text) }),
  ).catch(() => {});
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    await child.status;
    clearTimeout(timer);
    cancel();
    await reading;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  for (let i = 0; i < 400; i++) {
    try {
      const ready = JSON.parse(await Deno.readTextFile(readyFile)) as { port: number; url: string };
      return {
        child,
        port: ready.port,
        token: new URL(ready.url).searchParams.get("token") ?? "",
        httpUrl: `http://127.0.0.1:${ready.port}`,
        wsUrl: `ws://127.0.0.1:${ready.port}`,
        root: join(dir, "root"),
        log: () => log,
        [Symbol.asyncDispose]: stop,
      };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await stop();
  throw new Error(`chat serve did not become ready: ${log}`);
}
