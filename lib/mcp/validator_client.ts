import {
  errorMessage,
  isRecord,
  SECRET_VARIABLE_NAMES,
  ShellWordsError,
  splitShellWords,
  startTimer,
  type SynConfig,
  SynError,
} from "../core/mod.ts";
import {
  connectionFromConn,
  MAX_LINE_BYTES,
  RpcClient,
  type RpcConnection,
  type RpcOutcome,
  settlesWithin,
} from "../rpc/mod.ts";
import { PAYLOAD_TOO_LARGE_RESULT } from "./tool_result.ts";
import { resolveMcpEndpoint } from "./mcp_endpoint.ts";

/** What the client reads of the configuration: the transport, and what its child gets. */
export type ValidatorConfig = Pick<
  SynConfig,
  "mcp" | "schemasDir" | "examplesDir" | "backend" | "system"
>;

/** Options of {@linkcode connectValidator}. */
export interface ConnectValidatorOptions {
  /** The configuration (`MCP_ENDPOINT`, `MCP_HOST`, …, and what a stdio child is given). */
  config: ValidatorConfig;
  /** The argv that starts this program, used to spawn `mcp-serve --stdio` as a child. */
  selfCommand: readonly string[];
  /** Receives warnings (deprecations, fallbacks) and the child's stderr lines. */
  warn?: (line: string) => void;
  /** Per-call timeout in milliseconds (default 10,000); also bounds connecting. */
  timeoutMs?: number;
  /**
   * How long `close()` waits for a stdio child to exit after its input ends before it
   * sends SIGTERM, and again before SIGKILL (default 2,000 ms).
   */
  closeGraceMs?: number;
}

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

/** How {@linkcode connectValidator} resolved the environment. */
export type ValidatorTarget =
  | { transport: "stdio"; command: string[]; own: boolean }
  | { transport: "tcp"; hostname: string; port: number }
  | { transport: "socket"; path: string };

/** Variables a stdio child receives from the caller's configuration when they are set. */
function forwardedToChild(config: ValidatorConfig): Record<string, string | undefined> {
  return {
    // The same Deno cache as ours (also when only `.env` names it): our own child then finds
    // every npm package we have and never downloads into another cache.
    DENO_DIR: config.system.denoDir,
    SYN_SCHEMAS_DIR: config.schemasDir,
    SYN_EXAMPLES_DIR: config.examplesDir,
    SYN_BACKEND_URL: config.backend.url,
    SYN_BACKEND_ASSETS_PATH: config.backend.assetsPath,
    MCP_READY_FILE: config.mcp.readyFile,
  };
}

/**
 * Resolves the validator transport from the configuration, as the server reads it
 * (`resolveMcpEndpoint`, client role). Nothing configured (no `MCP_ENDPOINT`, `MCP_HOST`
 * or `MCP_PORT`), or stdio without `MCP_ADAPTER_CMD` → our own `mcp-serve --stdio` as a
 * child. Throws `SynError` with code `validator_config` for a configuration that cannot
 * work (tcp without a port or on port 0, socket without a path, an `MCP_ADAPTER_CMD` that
 * is not one plain command).
 */
export function resolveValidatorTarget(
  config: Pick<ValidatorConfig, "mcp" | "schemasDir" | "examplesDir">,
  selfCommand: readonly string[],
  warn: (line: string) => void = () => {},
): ValidatorTarget {
  const own = { transport: "stdio" as const, command: [...selfCommand, "mcp-serve", "--stdio"] };
  const target = resolveMcpEndpoint(config.mcp, "client", (line) => warn(`validator: ${line}`));
  if (target.transport !== "stdio") {
    const deprecated = { SYN_SCHEMAS_DIR: config.schemasDir, SYN_EXAMPLES_DIR: config.examplesDir };
    for (const [name, value] of Object.entries(deprecated)) {
      if (value) {
        warn(
          `validator: ${name} is deprecated and ignored for ${target.transport}; configure the server's schemas instead`,
        );
      }
    }
    return target;
  }
  const adapter = target.configured ? config.mcp.adapterCommand : undefined;
  if (adapter === undefined) return { ...own, own: true };
  return { transport: "stdio", command: adapterCommand(adapter), own: false };
}

/** `MCP_ADAPTER_CMD` as argv, split by syn's one shell-word splitter. */
function adapterCommand(line: string): string[] {
  try {
    return splitShellWords(line, "MCP_ADAPTER_CMD");
  } catch (error) {
    if (!(error instanceof ShellWordsError)) throw error;
    throw new SynError("validator_config", error.message);
  }
}

/**
 * Connects to the validator service chosen by the environment (see
 * {@linkcode resolveValidatorTarget}). Throws only for a configuration error; a server
 * that cannot be reached gives a client whose every call answers
 * `{ ok: false, reason: "transport_error", detail }`.
 */
export async function connectValidator(options: ConnectValidatorOptions): Promise<ValidatorClient> {
  const warn = options.warn ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 10_000;
  const target = resolveValidatorTarget(options.config, options.selfCommand, warn);
  if (target.transport === "stdio") {
    // Our own child must not share the default ready file with other syn processes
    // running at once (each would remove the other's): it gets a file of its own,
    // unless MCP_READY_FILE names one.
    const extraEnv: Record<string, string> = target.own && !options.config.mcp.readyFile
      ? {
        MCP_READY_FILE: `${temporaryDirectory(options.config.system.tempDir)}/syn-mcp-${Deno.pid}-${
          crypto.randomUUID().slice(0, 8)
        }.ready`,
      }
      : {};
    return spawnValidator(target.command, options, timeoutMs, extraEnv);
  }
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
 * Where temporary files go, by `os.tmpdir()`'s rule (the configuration's `TMPDIR`, `TMP` or
 * `TEMP`, else `/tmp`),
 * without `node:os`: the first `node:` import starts Deno's Node compatibility layer,
 * which would cost `generate` a third of a bare start.
 */
export function temporaryDirectory(configured: string | undefined): string {
  const directory = configured || "/tmp";
  return directory.length > 1 ? directory.replace(/[\\/]+$/, "") : directory;
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

function deadClient(transport: ValidatorTransport, detail: string): ValidatorClient {
  const failure = () => Promise.resolve({ ok: false, reason: "transport_error", detail });
  return {
    transport,
    call: failure,
    validateAsset: failure,
    close: () => Promise.resolve(),
  };
}

function spawnValidator(
  command: string[],
  options: ConnectValidatorOptions,
  timeoutMs: number,
  extraEnv: Record<string, string> = {},
): ValidatorClient {
  const env: Record<string, string> = { ...extraEnv };
  // A child inherits our environment; a validator has no use for the provider keys, and an
  // MCP_ADAPTER_CMD may be someone else's program: it sees them empty.
  for (const name of SECRET_VARIABLE_NAMES) env[name] = "";
  for (const [name, value] of Object.entries(forwardedToChild(options.config))) {
    if (value !== undefined) env[name] = value;
  }
  // Plain text on stderr: what the child says reaches the user's terminal as a warning.
  env.NO_COLOR = "1";
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command[0], {
      args: command.slice(1),
      env,
      stdin: "piped",
      stdout: "piped",
      // Never our stdout: the child's diagnostics go to `warn`, or nowhere.
      stderr: options.warn ? "piped" : "null",
    }).spawn();
  } catch (error) {
    return deadClient("stdio", `cannot start ${command[0]}: ${errorMessage(error)}`);
  }
  let exitCode: number | undefined;
  const status = child.status.then((value) => {
    exitCode = value.code;
    return value;
  });
  const stderrReader = options.warn ? child.stderr.getReader() : undefined;
  const stderrDone = stderrReader
    ? forwardLines(stderrReader, (line) => {
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
    timeoutMs,
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
      if (stderrReader && !await settlesWithin(stderrDone, graceMs)) {
        await stderrReader.cancel().catch(() => {});
      }
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

async function forwardLines(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  emit: (line: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    while (true) {
      const { value: chunk, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const line = buffered.slice(0, newline).trimEnd();
        buffered = buffered.slice(newline + 1);
        if (line !== "") emit(line);
      }
      if (buffered.length > MAX_LINE_BYTES) buffered = buffered.slice(-MAX_LINE_BYTES);
    }
  } catch {
    // the child is gone
  }
  if (buffered.trim() !== "") emit(buffered.trim());
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
