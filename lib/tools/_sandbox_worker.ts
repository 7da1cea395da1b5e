/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * The sandbox worker: the only code that starts processes or reaches the network for a tool
 * call, and that opens files for one. It runs with the Deno permissions its session was
 * granted (read/write = the sandbox root, net = granted hosts, run = allowlisted
 * executables, nothing else). Those permissions are no second layer against symlinks:
 * Deno follows a symlink inside the root to wherever it points (and ignores `O_NOFOLLOW`),
 * so a folder swapped for a symlink between a check and an open would be followed. Every
 * file and folder is therefore opened first and then proved to be inside the root by its
 * open descriptor: the supervisor reads `/proc/self/fd/<fd>` (the kernel's path of what
 * was opened — a worker is denied `/proc/self/fd` unless it has every permission) and the
 * worker refuses anything outside. Reads go through that descriptor; the supervisor lists a
 * folder through it.
 *
 * It imports nothing: loading `node:fs` (for raw descriptor numbers) would cost a new
 * isolate more than its own start. So the worker opens with `Deno.open` and names what it
 * opened by device and inode (`fstat`); the supervisor finds the process's descriptor on
 * that inode in `/proc/self/fd` and reads its path there. A FIFO or device is refused by a
 * `stat` before the open and by the `fstat` after it; one swapped in between those two
 * would block the open until the call's deadline ends the worker — a timeout, never a
 * read outside the root.
 *
 * Protocol: the supervisor's first message, `{prove: true}`, is answered with
 * `{ready: true, enforced}` (whether the permissions bind); then `{seq, op, ...params}` in;
 * `{seq, ok: true, value}` or
 * `{seq, ok: false, code, message}` out; a spawn also sends `{seq, spawned: pid}` first.
 * To check an open file it sends `{verify: id, dev, ino, list}` and gets
 * `{verified: id, path, entries?}` or `{verified: id, error}` back. `read_text` answers
 * `{seq, held: {dev, ino}, value}` (no `ok`): `held` is the descriptor it read through,
 * still open; the supervisor proves it inside the root before it gives the value out,
 * then sends `{released: seq}` and the worker closes it.
 */
interface Reply {
  seq: number;
  ok: boolean;
  value?: unknown;
  code?: string;
  message?: string;
}

class Refusal extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** What the supervisor read for an open descriptor. */
interface Opened {
  path: string;
  entries?: { name: string; type: string; size?: number }[];
}

const verifying = new Map<number, (reply: Opened & { error?: string }) => void>();
let verifyId = 0;

/**
 * Where the open file with this device and inode really is, asked of the supervisor,
 * refused unless inside `root`. With `list` > 0, the supervisor also lists up to that
 * many entries of the folder through the open descriptor.
 */
function openedInside(root: string, info: Deno.FileInfo, list = 0): Promise<Opened> {
  const id = ++verifyId;
  return new Promise((resolve, reject) => {
    verifying.set(id, (reply) => {
      verifying.delete(id);
      if (reply.error !== undefined || typeof reply.path !== "string") {
        reject(new Refusal("sandbox_unavailable", `Cannot check what was opened: ${reply.error}`));
      } else if (!inside(root, reply.path)) {
        reject(new Refusal("path_escape", "Path leaves the sandbox root"));
      } else resolve(reply);
    });
    self.postMessage({ verify: id, dev: info.dev, ino: info.ino, list });
  });
}

/** Refuses what is not a regular file (`folder` false) or not a folder (`folder` true). */
function checkKind(info: Deno.FileInfo, folder: boolean): void {
  if (folder) {
    if (!info.isDirectory) throw new Refusal("io_error", "Path is not a folder");
  } else if (info.isDirectory) throw new Refusal("io_error", "Path is a folder, not a file");
  else if (!info.isFile) throw new Refusal("io_error", "Path is not a regular file");
}

/**
 * Opens for reading what `stat` says is a file (or a folder): never a FIFO or a device,
 * whose open could block or take a terminal. The kind is checked again on the open file.
 * Synchronous, as `node:fs` was here: each asynchronous call is a trip through the
 * runtime's blocking pool, and these take microseconds.
 */
function openForReading(path: string, folder: boolean): { file: Deno.FsFile; info: Deno.FileInfo } {
  checkKind(Deno.statSync(path), folder);
  const file = Deno.openSync(path, { read: true });
  try {
    const info = file.statSync();
    checkKind(info, folder);
    return { file, info };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** Cuts UTF-8 bytes at `max` without splitting a character. */
function cutUtf8(bytes: Uint8Array, max: number): Uint8Array {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** Up to `max + 4` bytes of the file (enough to tell whether it goes on), synchronously. */
function readCapped(file: Deno.FsFile, max: number): { bytes: Uint8Array; more: boolean } {
  const buffer = new Uint8Array(max + 4);
  let length = 0;
  while (length < buffer.length) {
    const count = file.readSync(buffer.subarray(length));
    if (count === null) return { bytes: buffer.subarray(0, length), more: false };
    length += count;
  }
  return { bytes: buffer, more: true };
}

/**
 * An answer that the supervisor gives out only once it has proved the open descriptor
 * (`dev`, `ino`) inside the root; the descriptor stays open until it says `released`.
 */
class HeldOpen {
  constructor(readonly value: unknown, readonly info: Deno.FileInfo) {}
}

const held = new Map<number, Deno.FsFile>();

/**
 * `read_text`: opened, then read through the descriptor, and answered together with the
 * descriptor's identity: the supervisor proves where it is before it hands the text on,
 * so a read costs one round trip between the threads instead of two. What was read of a
 * file outside the root never leaves the supervisor.
 */
function readText(seq: number, params: { root: string; path: string; maxBytes: number }) {
  const { file, info } = openForReading(params.path, false);
  try {
    const { bytes, more } = readCapped(file, params.maxBytes);
    const kept = cutUtf8(bytes, params.maxBytes);
    const truncated = more || kept.length < bytes.length;
    const value = { text: new TextDecoder().decode(kept), bytes: info.size, truncated };
    held.set(seq, file);
    return new HeldOpen(value, info);
  } catch (error) {
    file.close();
    throw error;
  }
}

async function listDir(
  params: { root: string; path: string; maxEntries: number; scanCap: number },
) {
  const { file, info } = openForReading(params.path, true);
  let names: { name: string; type: string; size?: number }[];
  try {
    names = (await openedInside(params.root, info, params.scanCap + 1)).entries ?? [];
  } finally {
    file.close();
  }
  const scanned = names.length;
  names = names.slice(0, params.scanCap);
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const shown = names.slice(0, params.maxEntries);
  return {
    entries: shown,
    total: scanned > params.scanCap ? null : names.length,
    truncated: names.length > shown.length || scanned > params.scanCap,
  };
}

async function drain(
  stream: ReadableStream<Uint8Array>,
  max: number,
  onOverflow: () => void,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  for await (const chunk of stream) {
    if (kept < max) {
      const part = chunk.subarray(0, max - kept);
      chunks.push(part);
      kept += part.length;
    }
    if (kept >= max && chunk.length > 0 && !truncated) {
      truncated = true;
      onOverflow();
    }
  }
  const bytes = new Uint8Array(kept);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}

async function spawn(
  seq: number,
  params: {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    maxOutputBytes: number;
  },
) {
  const child = new Deno.Command(params.argv[0], {
    args: params.argv.slice(1),
    cwd: params.cwd,
    clearEnv: true,
    env: params.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // Its own process group, so the supervisor can kill everything it started at once.
    detached: true,
  }).spawn();
  self.postMessage({ seq, spawned: child.pid });
  let timedOut = false;
  let overflowed = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, params.timeoutMs);
  const overflow = () => {
    overflowed = true;
    kill();
  };
  const [stdout, stderr, status] = await Promise.all([
    drain(child.stdout, params.maxOutputBytes, overflow),
    drain(child.stderr, params.maxOutputBytes, overflow),
    child.status,
  ]);
  clearTimeout(timer);
  const decoder = new TextDecoder();
  return {
    exit_code: status.code,
    signal: overflowed || timedOut ? null : status.signal,
    stdout: decoder.decode(cutUtf8(stdout.bytes, params.maxOutputBytes)),
    stderr: decoder.decode(cutUtf8(stderr.bytes, params.maxOutputBytes)),
    truncated: stdout.truncated || stderr.truncated,
    timed_out: timedOut,
  };
}

/**
 * What a failed `fetch` says, by cause. Deno's fetch rejects every network failure with
 * `TypeError: fetch failed`; the reason is only in the text of `error.cause` (Deno 2.9:
 * "tcp connect error: Connection refused (os error 111)", "dns error: failed to lookup
 * address information", "connection closed before message completed", "invalid peer
 * certificate: …", "tls handshake eof"), with no `code`.
 */
const FETCH_CAUSES: [RegExp, string, string][] = [
  [
    /dns error|failed to lookup address|name or service not known|no address associated/i,
    "io_error",
    "Host name not resolved",
  ],
  [/connection refused|os error 111\b/i, "io_error", "Connection refused"],
  [/connection reset|os error 104\b/i, "io_error", "Connection reset by the server"],
  [
    /network is unreachable|no route to host|os error 10[13]\b|os error 113\b/i,
    "io_error",
    "Network unreachable",
  ],
  [/timed out|os error 110\b/i, "timeout", "Connection timed out"],
  [/certificate|tls|ssl|handshake|corrupt message/i, "io_error", "TLS failed"],
  [
    /connection closed|unexpected eof|incomplete ?message|broken pipe/i,
    "io_error",
    "Connection closed by the server before a complete response",
  ],
];

function fetchFailure(error: unknown): unknown {
  if (!(error instanceof TypeError)) return error;
  const messages: string[] = [];
  for (let cause: unknown = error; cause instanceof Error && messages.length < 5;) {
    messages.push(cause.message);
    cause = cause.cause;
  }
  const text = messages.join(" | ");
  const found = FETCH_CAUSES.find(([pattern]) => pattern.test(text));
  if (!found) return error;
  // The last clause of the innermost message, without the URL it repeats: printable only.
  const detail = (messages.at(-1) ?? "").split("): ").at(-1)!.replace(/[^\x20-\x7e]/g, "?");
  return new Refusal(found[1], `${found[2]}: ${detail.slice(0, 200)}`);
}

async function fetchOnce(
  params: { url: string; timeoutMs: number; maxBytes: number; headers: Record<string, string> },
) {
  const response = await fetch(params.url, {
    redirect: "manual",
    headers: params.headers,
    signal: AbortSignal.timeout(params.timeoutMs),
  }).catch((error) => {
    throw fetchFailure(error);
  });
  const { bytes, more } = response.body
    ? await readStream(response.body, params.maxBytes).catch((error) => {
      throw fetchFailure(error);
    })
    : { bytes: new Uint8Array(), more: false };
  return {
    status: response.status,
    location: response.headers.get("location"),
    content_type: response.headers.get("content-type"),
    body: new TextDecoder().decode(cutUtf8(bytes, params.maxBytes)),
    truncated: more,
  };
}

async function readStream(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<{ bytes: Uint8Array; more: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let more = false;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
    if (length > max) {
      more = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes: bytes.subarray(0, Math.min(length, max + 4)), more };
}

/** Whether the permissions really bind: reading `/` and the environment must be refused. */
function probe(): boolean {
  for (const attempt of [() => Deno.readDirSync("/"), () => Deno.env.toObject()]) {
    try {
      attempt();
      return false;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotCapable)) return false;
    }
  }
  return true;
}

function failure(seq: number, error: unknown): Reply {
  if (error instanceof Refusal) return { seq, ok: false, code: error.code, message: error.message };
  if (error instanceof Deno.errors.NotCapable) {
    return { seq, ok: false, code: "not_allowed", message: "Refused by the sandbox's permissions" };
  }
  if (error instanceof Deno.errors.NotFound || (error as { code?: string })?.code === "ENOENT") {
    return { seq, ok: false, code: "not_found", message: "No such file or folder" };
  }
  if (error instanceof Deno.errors.AlreadyExists) {
    return { seq, ok: false, code: "exists", message: "File exists (pass overwrite: true)" };
  }
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return { seq, ok: false, code: "timeout", message: "The request timed out" };
  }
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message.slice(0, 300) : String(error);
  return { seq, ok: false, code: "io_error", message: `${name}: ${message}` };
}

// deno-lint-ignore no-explicit-any
type Params = any;

const OPS: Record<string, (seq: number, params: Params) => unknown> = {
  read_text: (seq, params) => readText(seq, params),
  list_dir: (_seq, params) => listDir(params),
  spawn: (seq, params) => spawn(seq, params),
  fetch: (_seq, params) => fetchOnce(params),
};

/**
 * Whether the permissions bind, proved before any request is read: requests may already be
 * waiting (the supervisor does not wait for its answer to `{prove: true}`), and none runs
 * unless this holds.
 */
const ENFORCED = probe();

self.onmessage = async (event: MessageEvent) => {
  if (typeof event.data?.verified === "number") {
    verifying.get(event.data.verified)?.(event.data);
    return;
  }
  if (typeof event.data?.released === "number") {
    held.get(event.data.released)?.close();
    held.delete(event.data.released);
    return;
  }
  if (event.data?.prove === true) {
    self.postMessage({ ready: true, enforced: ENFORCED });
    return;
  }
  const { seq, op, params } = event.data as { seq: number; op: string; params: Params };
  if (!ENFORCED) {
    const message = "The sandbox's permissions are not enforced here; refusing to run tools";
    self.postMessage({ seq, ok: false, code: "sandbox_unavailable", message });
    return;
  }
  const run = Object.hasOwn(OPS, op) ? OPS[op] : undefined;
  if (!run) {
    self.postMessage({ seq, ok: false, code: "io_error", message: `Unknown operation: ${op}` });
    return;
  }
  try {
    const value = await run(seq, params);
    if (value instanceof HeldOpen) {
      // No `ok`: a supervisor that does not prove `held` takes this for a failure.
      const held = { dev: value.info.dev, ino: value.info.ino };
      self.postMessage({ seq, held, value: value.value });
    } else self.postMessage({ seq, ok: true, value });
  } catch (error) {
    self.postMessage(failure(seq, error));
  }
};
