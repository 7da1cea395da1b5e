import { ToolFailure } from "./tool_failure.ts";
import type { ToolErrorCode } from "./types.ts";
import { compareCodePoints, startTimer } from "../core/mod.ts";
import type { WriteOutcome } from "./_write_inside.ts";
import { isInside } from "./resolve_in_root.ts";

/** What a sandbox may touch; everything not named here is denied. */
export interface SandboxPermissions {
  /** The sandbox root, a real absolute path: read and write are scoped to it. */
  root: string;
  /** Hosts the network is open to (as Deno matches them: by name as written), or `true` for all. */
  net: readonly string[] | true;
  /** Absolute paths of the executables it may start. */
  run: readonly string[];
}

/** Options of one request to the worker. */
export interface SandboxRequestOptions {
  /** Hard deadline: past it the worker and anything it started are killed. */
  timeoutMs: number;
  /** Told the process id of a child the worker started (the leader of its own group). */
  onSpawn?: (pid: number) => void;
}

const READY_TIMEOUT_MS = 10_000;
const WORKER_URL = new URL("./_sandbox_worker.ts", import.meta.url);

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onSpawn?: (pid: number) => void;
  pid?: number;
  /** The root the request named: an answer read through an open descriptor must lie inside it. */
  root: string;
}

/** A stable key: a session reuses its warm sandbox until this changes. */
export function permissionsKey(permissions: SandboxPermissions): string {
  const net = permissions.net === true ? true : [...permissions.net].sort(compareCodePoints);
  return JSON.stringify([permissions.root, net, [...permissions.run].sort(compareCodePoints)]);
}

/**
 * A worker that holds exactly the session's Deno permissions (read/write = the root, net
 * = granted hosts, run = allowlisted executables; env, sys, ffi, import denied; never
 * prompting). Requests are posted to it; a request past its deadline, or a worker that
 * dies, fails as a `ToolFailure` and the sandbox is marked dead — the caller's session
 * starts a new one. A sandbox starts only after the worker proved its permissions bind.
 */
export class Sandbox {
  readonly key: string;
  /** The root, a real absolute path. */
  readonly root: string;
  /** Whether it may start programs (its `run` permission names any). */
  readonly runsPrograms: boolean;
  #worker: Worker;
  #pending = new Map<number, Pending>();
  #seq = 0;
  #dead = false;
  #retiring = false;
  #users = 0;
  /** Settles when the worker has proved its permissions bind (rejects if it cannot). */
  #proven: Promise<void> = Promise.resolve();
  #endProof?: (message: string) => void;

  private constructor(worker: Worker, permissions: SandboxPermissions) {
    this.#worker = worker;
    this.key = permissionsKey(permissions);
    this.root = permissions.root;
    this.runsPrograms = permissions.run.length > 0;
  }

  /** Starts a worker with these permissions and waits until it has proved they bind. */
  static async start(permissions: SandboxPermissions): Promise<Sandbox> {
    const sandbox = Sandbox.launch(permissions);
    await sandbox.#proven;
    return sandbox;
  }

  /**
   * Starts a worker with these permissions without waiting for it. Requests may be made at
   * once: the worker answers none before it has proved its permissions bind (it checks
   * that itself, first thing), and a worker that cannot prove it is ended with every
   * request failing as `sandbox_unavailable`. A request then costs no extra round trip
   * between the threads while the worker starts.
   */
  static launch(permissions: SandboxPermissions): Sandbox {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_URL, {
        type: "module",
        name: "syn-sandbox",
        deno: {
          permissions: {
            read: [permissions.root],
            write: [permissions.root],
            net: permissions.net === true ? true : [...permissions.net],
            run: [...permissions.run],
            env: false,
            sys: false,
            ffi: false,
            import: false,
          },
        },
      });
    } catch (error) {
      throw new ToolFailure("sandbox_unavailable", `Cannot start the sandbox: ${String(error)}`);
    }
    // Asked for, not announced: a worker's first message costs it ~1 ms of one-time set-up,
    // paid here while the supervisor goes on rather than by the first request.
    worker.postMessage({ prove: true });
    const sandbox = new Sandbox(worker, permissions);
    sandbox.#proven = sandbox.#ready();
    sandbox.#proven.catch(() => {}); // a failed proof ends the sandbox and its requests
    return sandbox;
  }

  #ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const fail = (message: string) => this.#die("sandbox_unavailable", message);
      const cancel = startTimer(READY_TIMEOUT_MS, () => fail("The sandbox did not start in time"));
      // Ended before its proof (closed, or failed): stop waiting for it.
      this.#endProof = (message) => {
        cancel();
        reject(new ToolFailure("sandbox_unavailable", message));
      };
      this.#worker.onerror = (event) => {
        event.preventDefault();
        fail(`The sandbox failed to start: ${event.message}`);
      };
      this.#worker.onmessage = (event) => {
        cancel();
        const data = event.data as { ready?: boolean; enforced?: boolean };
        if (!data.ready || !data.enforced) {
          return fail("The sandbox's permissions are not enforced here; refusing to run tools");
        }
        this.#worker.onmessage = (message) => this.#onMessage(message.data);
        this.#worker.onerror = (error) => {
          error.preventDefault();
          this.#die("io_error", `The sandbox worker died: ${error.message}`);
        };
        resolve();
      };
    });
  }

  /** True once the worker was killed or died; a dead sandbox refuses every request. */
  get dead(): boolean {
    return this.#dead;
  }

  /** Runs one operation in the worker. Rejects with `ToolFailure` only. */
  request(op: string, params: unknown, options: SandboxRequestOptions): Promise<unknown> {
    if (this.#dead) {
      return Promise.reject(new ToolFailure("sandbox_unavailable", "The sandbox is closed"));
    }
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      const cancel = startTimer(options.timeoutMs, () => {
        this.#die("timeout", `The call took longer than ${Math.round(options.timeoutMs)} ms`);
      });
      const named = (params as { root?: unknown } | null)?.root;
      this.#pending.set(seq, {
        root: typeof named === "string" ? named : this.root,
        onSpawn: options.onSpawn,
        resolve: (value) => {
          cancel();
          resolve(value);
        },
        reject: (error) => {
          cancel();
          reject(error);
        },
      });
      this.#worker.postMessage({ seq, op, params });
    });
  }

  /**
   * `fs.write_text`'s write of `text` at `relative` (below the root), done here through
   * descriptors checked folder by folder (see `writeInsideRoot`): the worker's path-scoped
   * permissions follow a symlink swapped in after any check, a descriptor does not.
   */
  async writeText(relative: string, text: string, overwrite: boolean): Promise<WriteOutcome> {
    if (this.#dead) throw new ToolFailure("sandbox_unavailable", "The sandbox is closed");
    // Loaded at the first write: it needs node:fs (descriptors), whose loading costs more
    // than a whole bare start, and most sessions and every read never write. The specifier
    // is computed, as in `shell_exec.ts` (embedded by name: `scripts/compile_options.ts`).
    const { writeInsideRoot }: typeof import("./_write_inside.ts") = await import(
      new URL("./_write_inside.ts", import.meta.url).href
    );
    try {
      const data = new TextEncoder().encode(text);
      return writeInsideRoot(this.root, relative, data, overwrite);
    } catch (error) {
      if (error instanceof ToolFailure) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolFailure("io_error", message);
    }
  }

  #onMessage(
    data: {
      seq: number;
      ok?: boolean;
      value?: unknown;
      code?: string;
      message?: string;
      spawned?: number;
      held?: { dev?: unknown; ino?: unknown };
      verify?: number;
      dev?: unknown;
      ino?: unknown;
      list?: unknown;
    },
  ) {
    if (typeof data.verify === "number") {
      return this.#verify(data.verify, data.dev, data.ino, data.list);
    }
    const pending = this.#pending.get(data.seq);
    if (!pending) return;
    if (typeof data.spawned === "number") {
      pending.pid = data.spawned;
      pending.onSpawn?.(data.spawned);
      return;
    }
    this.#pending.delete(data.seq);
    if (data.held !== undefined) this.#proveHeld(data.seq, pending, data);
    else if (data.ok) pending.resolve(data.value);
    else {pending.reject(
        new ToolFailure((data.code ?? "io_error") as ToolErrorCode, data.message ?? "failed"),
      );}
  }

  /**
   * Gives out an answer the worker read through a descriptor it still holds open only when
   * that descriptor (`dev`, `ino`) really lies inside the request's root — the kernel's
   * path, not the one asked for — then lets the worker close it.
   */
  #proveHeld(
    seq: number,
    pending: Pending,
    data: { value?: unknown; held?: { dev?: unknown; ino?: unknown } },
  ): void {
    let path: string | undefined;
    let problem = "";
    try {
      path = openedPath(data.held?.dev, data.held?.ino).path;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    if (!this.#dead) this.#worker.postMessage({ released: seq });
    if (path === undefined) {
      pending.reject(
        new ToolFailure("sandbox_unavailable", `Cannot check what was opened: ${problem}`),
      );
    } else if (!isInside(pending.root, path)) {
      pending.reject(new ToolFailure("path_escape", "Path leaves the sandbox root"));
    } else pending.resolve(data.value);
  }

  /**
   * Tells the worker where the file it holds open as (`dev`, `ino`) really is: the kernel's
   * path of a descriptor on that inode in `/proc/self/fd` (which Deno denies a worker
   * without every permission) and, when `list` is a count, up to that many entries of the
   * folder read through the descriptor itself: a folder swapped for a symlink after the
   * open cannot change what is listed.
   */
  #verify(id: number, dev: unknown, ino: unknown, list: unknown): void {
    let reply: Record<string, unknown>;
    try {
      const opened = openedPath(dev, ino);
      const count = Number.isSafeInteger(list) ? list as number : 0;
      reply = {
        verified: id,
        path: opened.path,
        entries: count > 0 ? listOpened(opened.fd, count) : [],
      };
    } catch (error) {
      reply = { verified: id, error: error instanceof Error ? error.message : String(error) };
    }
    if (!this.#dead) this.#worker.postMessage(reply);
  }

  /** Kills the worker and every process group it started; fails what is still pending. */
  #die(code: ToolErrorCode, message: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#endProof?.(message);
    for (const pending of this.#pending.values()) {
      if (pending.pid !== undefined) killGroup(pending.pid);
      pending.reject(new ToolFailure(code, message));
    }
    this.#pending.clear();
    this.#worker.terminate();
  }

  /** Marks a call running in this sandbox until `release` (see `retire`). */
  acquire(): void {
    this.#users++;
  }

  release(): void {
    this.#users--;
    if (this.#retiring && this.#users <= 0) this.close();
  }

  /**
   * Stops the worker once no call is running in it: the session moved to a new sandbox,
   * and calls already running here finish here.
   */
  retire(): void {
    this.#retiring = true;
    if (this.#users <= 0) this.close();
  }

  /** Stops the worker (and kills what it started). Safe to call twice. */
  close(): void {
    this.#die("sandbox_unavailable", "The sandbox was closed");
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** {@linkcode descriptorOn} for identities that came from the worker, checked first. */
function openedPath(dev: unknown, ino: unknown): { fd: number; path: string } {
  if (!Number.isSafeInteger(dev) || !Number.isSafeInteger(ino)) {
    throw new TypeError("Not a file's identity");
  }
  return descriptorOn(dev as number, ino as number);
}

/**
 * A descriptor of this process open on the inode (`dev`, `ino`), with the kernel's path
 * for it. The first found serves: two descriptors on one inode read the same bytes (a
 * folder has one path; a file's other names are hard links to the same content). The
 * inode is looked up before and after reading the path, so a descriptor closed and reused
 * in between is skipped rather than trusted.
 */
function descriptorOn(dev: number, ino: number): { fd: number; path: string } {
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    const link = `/proc/self/fd/${entry.name}`;
    try {
      const before = Deno.statSync(link);
      if (before.ino !== ino || before.dev !== dev) continue;
      const path = Deno.readLinkSync(link);
      const after = Deno.statSync(link);
      if (after.ino === ino && after.dev === dev) return { fd: Number(entry.name), path };
    } catch {
      // closed while looked at
    }
  }
  throw new Error("The opened file is no longer open");
}

/** Up to `max` entries of the folder open as `fd`, each looked up through the descriptor. */
function listOpened(fd: number, max: number): { name: string; type: string; size?: number }[] {
  const folder = `/proc/self/fd/${fd}`;
  const entries: { name: string; type: string; size?: number }[] = [];
  for (const entry of Deno.readDirSync(folder)) {
    if (entries.length >= max) break;
    const type = entry.isSymlink
      ? "symlink"
      : entry.isDirectory
      ? "dir"
      : entry.isFile
      ? "file"
      : "other";
    entries.push(
      type === "file"
        ? { name: entry.name, type, size: Deno.lstatSync(`${folder}/${entry.name}`).size }
        : { name: entry.name, type },
    );
  }
  return entries;
}

/** SIGKILL to a whole process group (the worker starts each child as a group leader). */
export function killGroup(pid: number): void {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
