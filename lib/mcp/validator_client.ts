/**
 * The client half of this layer: a validator client over a connection, a child's pipes or
 * a socket.
 */
import { errorMessage, isRecord, readLines, startTimer } from "../core/mod.ts";
import {
  connectionFromConn,
  MAX_LINE_BYTES,
  RpcClient,
  type RpcConnection,
  type RpcOutcome,
  settlesWithin,
} from "../rpc/mod.ts";
import { PAYLOAD_TOO_LARGE_RESULT } from "./tool_result.ts";
import type { ValidatorTarget } from "./validator_target.ts";

/** A validation verdict, or a structured failure (`reason` + `detail`). */
export interface ValidatorVerdict {
  ok: boolean;
  errors?: { path: string; msg: string }[];
  reason?: string;
  detail?: string;
}

/** The transport a client uses. */
export type ValidatorTransport = "stdio" | "tcp" | "socket" | "memory";

/** A connection to the validator service, as `generate` uses it. */
export interface ValidatorClient {
  readonly transport: ValidatorTransport;
  /** Calls a tool; transport failures come back as { ok: false, reason, detail } — never throws, never hangs. */
  call(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown> & { ok: boolean }>;
  /** `validate_asset`; the schema defaults to `nested-synesthetic-asset` (MCP spec §9). */
  validateAsset(asset: unknown, schema?: string): Promise<ValidatorVerdict>;
  /** Closes the connection (and ends a child process); idempotent. */
  close(): Promise<void>;
}

/** Connects to a validator listening on TCP or a Unix socket. */
export async function connectOverNetwork(
  target: Exclude<ValidatorTarget, { transport: "stdio" }>,
  timeoutMs: number,
): Promise<ValidatorClient> {
  let conn: Deno.Conn;
  try {
    conn = await withTimeout(
      target.transport === "tcp"
        ? Deno.connect({ hostname: target.hostname, port: target.port })
        : Deno.connect({ transport: "unix", path: target.path }),
      timeoutMs,
    );
  } catch (error) {
    const where = target.transport === "tcp" ? `${target.hostname}:${target.port}` : target.path;
    return deadClient(target.transport, `cannot connect to ${where}: ${errorMessage(error)}`);
  }
  if (target.transport === "tcp") (conn as Deno.TcpConn).setNoDelay(true);
  return validatorClientFromConnection(connectionFromConn(conn), {
    transport: target.transport,
    timeoutMs,
  });
}

/**
 * A validator client over an already open connection (for in-memory tests and custom
 * transports). `onClose` runs after the connection is closed.
 */
export function validatorClientFromConnection(
  connection: RpcConnection,
  options: {
    transport?: ValidatorTransport;
    timeoutMs?: number;
    describeClose?: () => string;
    onClose?: () => Promise<void>;
  } = {},
): ValidatorClient {
  const rpc = new RpcClient(connection, {
    describeClose: options.describeClose ?? (() => "validator closed the connection"),
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  let closing: Promise<void> | undefined;
  const call = async (method: string, params?: Record<string, unknown>) =>
    toToolResult(await rpc.request(method, params ?? {}, { timeoutMs }));
  return {
    transport: options.transport ?? "memory",
    call,
    async validateAsset(asset, schema = "nested-synesthetic-asset") {
      return toVerdict(await call("validate_asset", { asset, schema }));
    },
    close() {
      closing ??= (async () => {
        await rpc.close();
        await options.onClose?.();
      })();
      return closing;
    },
  };
}

function toToolResult(outcome: RpcOutcome): Record<string, unknown> & { ok: boolean } {
  switch (outcome.kind) {
    case "result": {
      const result = outcome.result;
      if (
        isRecord(result) && typeof result.ok === "boolean"
      ) {
        return result as Record<string, unknown> & { ok: boolean };
      }
      return { ok: false, reason: "bad_response", detail: "reply has no boolean ok" };
    }
    case "error":
      return {
        ok: false,
        reason: "rpc_error",
        code: outcome.error.code,
        detail: String(outcome.error.message),
      };
    case "failure":
      if (outcome.reason === "payload_too_large") {
        // The spec's own payload-too-large shape, so callers treat it as an invalid asset.
        return { ...structuredClone(PAYLOAD_TOO_LARGE_RESULT), detail: outcome.detail };
      }
      return { ok: false, reason: outcome.reason, detail: outcome.detail };
  }
}

function toVerdict(result: Record<string, unknown> & { ok: boolean }): ValidatorVerdict {
  const verdict: ValidatorVerdict = { ok: result.ok };
  if (Array.isArray(result.errors)) {
    verdict.errors = result.errors.map((issue) => ({
      path: String((issue as Record<string, unknown>)?.path ?? ""),
      msg: String((issue as Record<string, unknown>)?.msg ?? ""),
    }));
  }
  if (typeof result.reason === "string") verdict.reason = result.reason;
  if (typeof result.detail === "string") verdict.detail = result.detail;
  return verdict;
}

/** A client whose every call answers `transport_error` with `detail`: no connection was made. */
export function deadClient(transport: ValidatorTransport, detail: string): ValidatorClient {
  const failure = () => Promise.resolve({ ok: false, reason: "transport_error", detail });
  return {
    transport,
    call: failure,
    validateAsset: failure,
    close: () => Promise.resolve(),
  };
}

/** Options of {@linkcode childValidatorClient}. */
export interface ChildClientOptions {
  /** Receives the child's stderr lines (its stderr must then be piped). */
  warn?: (line: string) => void;
  timeoutMs: number;
  /**
   * How long `close()` waits for the child to exit after its input ends before it sends
   * SIGTERM, and again before SIGKILL (default 2,000 ms).
   */
  closeGraceMs?: number;
}

/**
 * A client over a validator child started by `connectValidator`: requests on its
 * stdin, replies on its stdout, its stderr lines to `warn`. `close()` ends its input and
 * waits for it to exit; a child that lingers is stopped, then killed.
 */
export function childValidatorClient(
  child: Deno.ChildProcess,
  options: ChildClientOptions,
): ValidatorClient {
  let exitCode: number | undefined;
  const status = child.status.then((value) => {
    exitCode = value.code;
    return value;
  });
  const stopStderr = options.warn ? new AbortController() : undefined;
  const stderrDone = stopStderr
    ? forwardLines(child.stderr, stopStderr.signal, (line) => {
      const plain = withoutColour(line).trim();
      if (plain !== "") options.warn!(`validator: ${plain}`);
    })
    : Promise.resolve();
  const graceMs = options.closeGraceMs ?? 2_000;
  const writer = child.stdin.getWriter();
  let stdinClosed = false;
  const connection: RpcConnection = {
    readable: child.stdout,
    async write(data) {
      await writer.write(typeof data === "string" ? encoder.encode(data) : data);
    },
    close() {
      if (stdinClosed) return;
      stdinClosed = true;
      writer.close().catch(() => {});
    },
  };
  return validatorClientFromConnection(connection, {
    transport: "stdio",
    timeoutMs: options.timeoutMs,
    describeClose: () =>
      exitCode === undefined
        ? "validator process closed its output"
        : `validator process exited with code ${exitCode}`,
    async onClose() {
      // End of input ends a stdio server; a child that lingers is stopped, then killed.
      for (const signal of ["SIGTERM", "SIGKILL"] as const) {
        if (await settlesWithin(status, graceMs)) break;
        try {
          child.kill(signal);
        } catch {
          // already exited
        }
      }
      await status;
      // A grandchild may still hold the stderr pipe open: stop listening after a while.
      if (stopStderr && !await settlesWithin(stderrDone, graceMs)) stopStderr.abort();
      await stderrDone;
    },
  });
}

const encoder = new TextEncoder();

/**
 * `line` without ANSI CSI sequences (colours, cursor moves: ESC `[` … final byte): a child
 * that colours its output anyway (Deno's `Download` lines) is shown as plain text rather
 * than as escaped `\x1b[0m` noise. Any other control character is left for the terminal
 * guard to neutralise.
 */
function withoutColour(line: string): string {
  // deno-lint-ignore no-control-regex
  return line.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "");
}

/** Calls `emit` with each line of `stream` until it ends or `signal` aborts. */
async function forwardLines(
  stream: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  emit: (line: string) => void,
): Promise<void> {
  try {
    for await (const read of readLines(stream, { maxLineBytes: MAX_LINE_BYTES, signal })) {
      if (read.kind === "line") emit(read.text);
      else if (read.kind === "oversize") emit(`${read.prefix}… (${read.bytes} bytes)`);
    }
  } catch {
    // the child is gone
  }
}

function withTimeout(promise: Promise<Deno.Conn>, ms: number): Promise<Deno.Conn> {
  let cancel = () => {};
  const timeout = new Promise<never>((_, reject) => {
    cancel = startTimer(ms, () => {
      // A connection that completes after we gave up is closed, not leaked.
      promise.then((conn) => conn.close(), () => {});
      reject(new Error(`timed out after ${ms} ms`));
    });
  });
  return Promise.race([promise, timeout]).finally(() => cancel());
}
