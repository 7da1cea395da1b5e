import {
  copyOwn,
  errorMessage,
  isRecord,
  maskSecretFields,
  redactText,
  redactValue,
  startTimer,
  SynError,
} from "../core/mod.ts";
import { sandboxNetHosts, systemResolveHost } from "./_url_policy.ts";
import { BASELINE_TOOLS, baselineRegistry } from "./baseline_tools.ts";
import {
  type CapabilityState,
  grantCapability,
  NO_CAPABILITIES,
  revokeCapability,
} from "./capabilities.ts";
import type { HttpCache } from "./http_cache_port.ts";
import { openHttpCache } from "./open_http_cache.ts";
import { permissionsKey, Sandbox, type SandboxPermissions } from "./sandbox.ts";
import { DEFAULT_SHELL_ALLOW, detectBubblewrap, shellRunPermissions } from "./shell_exec.ts";
import type { ToolContext, ToolPolicy } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";
import { argsValidator, ToolRegistry } from "./tool_registry.ts";
import { outputSummary } from "./output_summary.ts";
import type { ToolError, ToolOutcome, ToolResult, ToolTraceSink } from "./types.ts";

/** How a session is set up. Only `root` is required. */
export interface ToolSessionOptions {
  /** The sandbox root: an existing folder (not `/`). */
  root: string;
  /** Capabilities granted at the start (`net`, `net:<host>`). */
  granted?: readonly string[];
  /** The global network allowlist; empty: none. */
  allowHosts?: readonly string[];
  /** Executables added to the default `shell.exec` allowlist. */
  shellAllow?: readonly string[];
  /** `"auto"` (default): use bubblewrap for `shell.exec` where it works; `"off"`: never. */
  bubblewrap?: "auto" | "off";
  /**
   * Lets `shell.exec` run where bubblewrap is off or does not work (default: refused there,
   * as its path checks race with the program's own open; see `shellWithoutBubblewrap` in
   * `ToolPolicy`).
   */
  shellWithoutBubblewrap?: boolean;
  /** A `PATH`-style list of folders to find `bwrap` in (default: the usual system folders). */
  bubblewrapSearchPath?: string;
  /** Where the http cache lives; without one, nothing is cached. */
  stateDir?: string;
  /** `false` turns the http cache off (`--no-cache`). */
  cache?: boolean;
  /** Where `tool_start` / `tool_done` events go. */
  trace?: ToolTraceSink;
  /** The id carried by every trace event. */
  sessionId?: string;
  /** The longest any call may take, in ms; lowers a tool's own deadline. */
  maxTimeoutMs?: number;
  /** Deadline of a call whose tool names none, in ms (default 30 s). */
  defaultTimeoutMs?: number;
  /** The tools offered (default: the five baseline tools). */
  registry?: ToolRegistry;
  /**
   * The tool the first call will name, when that is known as the session opens (`syn tools
   * run`): the sandbox such a call uses, if it starts no program, starts at once, so its
   * worker's start overlaps the argument validators and the call's own set-up.
   */
  firstTool?: string;
  /** Secret values masked in trace events. */
  secrets?: readonly string[];
  resolveHost?: (hostname: string) => Promise<string[]>;
  now?: () => number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Time the supervisor gives a call past its own deadline before recycling the sandbox. */
const GRACE_MS = 2_000;

/**
 * One agent session's tool layer: a registry, the session's capabilities, and a warm
 * sandbox holding exactly the permissions they imply (rebuilt when they change). `call`
 * runs one tool call — shape and argument checks, capability and path checks, the
 * sandboxed work, traces — and always resolves to a `ToolResult`: a refusal, a crash, a
 * hang or a dead worker is `ok: false` with `error: {code, message}`. Calls run one at a
 * time, in the order they were made.
 */
export class ToolSession {
  readonly registry: ToolRegistry;
  readonly sessionId: string;
  #options: ToolSessionOptions;
  #root: string;
  #capabilities: CapabilityState;
  /** Probed when a call first starts a program (running bwrap once costs ~9 ms). */
  #bubblewrap?: Promise<boolean>;
  /** Known once the probe settled; `false` before (only `shell.exec` reads it, after it). */
  #bubblewrapKnown = false;
  #sandbox?: Sandbox;
  #httpCache?: Promise<HttpCache | undefined>;
  #queue: Promise<unknown> = Promise.resolve();
  /** Resolved executables per allowlist: resolving them costs ~26 file lookups. */
  #resolvedPrograms = new Map<string, Promise<string[]>>();
  #closed = false;

  private constructor(
    options: ToolSessionOptions,
    root: string,
    registry: ToolRegistry,
  ) {
    this.#options = options;
    this.#root = root;
    this.registry = registry;
    this.sessionId = options.sessionId ?? crypto.randomUUID();
    let capabilities = NO_CAPABILITIES;
    for (const cap of options.granted ?? []) capabilities = grantCapability(capabilities, cap);
    this.#capabilities = capabilities;
  }

  /**
   * Checks the root and prepares the registry; the sandbox starts at the first call, and
   * bubblewrap is probed at the first call that starts a program.
   */
  static async open(options: ToolSessionOptions): Promise<ToolSession> {
    const root = realRoot(options.root);
    const session = new ToolSession(options, root, options.registry ?? new ToolRegistry());
    if (options.firstTool !== undefined) session.#prestart(options.firstTool);
    if (!options.registry) {
      try {
        await baselineRegistry(session.registry);
      } catch (error) {
        session.close();
        throw error;
      }
    }
    return session;
  }

  /** Starts, without waiting, the sandbox a first call of `tool` will use (`firstTool`). */
  #prestart(tool: string): void {
    const descriptor = this.registry.get(tool) ??
      BASELINE_TOOLS.find((baseline) => baseline.name === tool);
    if (descriptor?.startsPrograms !== false) return;
    // A start that fails is tried again, and reported, by the call itself.
    this.#warmSandbox(false).catch(() => {});
  }

  /** The sandbox root (a real path). */
  get root(): string {
    return this.#root;
  }

  /** Whether `shell.exec` runs inside bubblewrap in this session (probed once). */
  usesBubblewrap(): Promise<boolean> {
    this.#bubblewrap ??= this.#options.bubblewrap === "off"
      ? Promise.resolve(false)
      : detectBubblewrap(this.#options.bubblewrapSearchPath);
    return this.#bubblewrap.then((found) => (this.#bubblewrapKnown = found));
  }

  get capabilities(): CapabilityState {
    return this.#capabilities;
  }

  /** Replaces the capability lists (the chat state changed them); the next call sees them. */
  setCapabilities(state: CapabilityState): void {
    this.#capabilities = state;
  }

  grant(capability: string): void {
    this.#capabilities = grantCapability(this.#capabilities, capability);
  }

  revoke(capability: string): void {
    this.#capabilities = revokeCapability(this.#capabilities, capability);
  }

  /** What the session allows right now. */
  policy(): ToolPolicy {
    return {
      root: this.#root,
      granted: this.#capabilities.capabilities_granted,
      allowHosts: this.#options.allowHosts ?? [],
      shellAllow: [...new Set([...DEFAULT_SHELL_ALLOW, ...(this.#options.shellAllow ?? [])])],
      bubblewrap: this.#bubblewrapKnown,
      shellWithoutBubblewrap: this.#options.shellWithoutBubblewrap === true,
      bubblewrapSearchPath: this.#options.bubblewrapSearchPath,
    };
  }

  /** Runs one call after the ones already made. Never rejects. */
  call(call: unknown): Promise<ToolResult> {
    const next = this.#queue.then(() => this.#run(call));
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Runs calls in order; each result in the same position. */
  async callAll(calls: readonly unknown[]): Promise<ToolResult[]> {
    const results: ToolResult[] = [];
    for (const call of calls) results.push(await this.call(call));
    return results;
  }

  async #run(raw: unknown): Promise<ToolResult> {
    const started = performance.now();
    const eventId = crypto.randomUUID();
    const call = callShape(raw);
    await this.#emit("tool_start", () => ({
      event_id: eventId,
      session_id: this.sessionId,
      call_id: call.id,
      tool_id: call.tool,
      input_params: this.#redact(call.args),
    }));
    let result: ToolResult;
    try {
      const output = await this.#execute(call);
      result = { id: call.id, tool: call.tool, ok: true, output, error: null };
    } catch (error) {
      result = { id: call.id, tool: call.tool, ok: false, output: null, error: toToolError(error) };
    }
    await this.#emit("tool_done", () => ({
      event_id: eventId,
      session_id: this.sessionId,
      call_id: call.id,
      tool_id: call.tool,
      input_params: this.#redact(call.args),
      output_summary: this.#summary(result),
      outcome: toolOutcome(result),
      error_code: result.error?.code ?? null,
      latency_ms: Math.max(0, Math.round(performance.now() - started)),
    }));
    return result;
  }

  async #execute(call: ShapedCall): Promise<unknown> {
    if (this.#closed) throw new ToolFailure("sandbox_unavailable", "The tool session is closed");
    if (call.problem) throw new ToolFailure("invalid_args", call.problem);
    const descriptor = this.registry.get(call.tool);
    if (!descriptor) throw new ToolFailure("unknown_tool", `Unknown tool: ${call.tool}`);
    // The sandbox starts (a new isolate, most of a bare start) while the args are checked.
    const sandbox = this.#warmSandbox(descriptor.startsPrograms !== false);
    sandbox.catch(() => {}); // awaited below unless the args are refused
    const args = withDefaults(descriptor.argsSchema, call.args);
    const verdict = (await argsValidator(descriptor))(args);
    if (!verdict.ok) {
      const first = verdict.errors.slice(0, 3).map((issue) => `${issue.path || "/"}: ${issue.msg}`);
      throw new ToolFailure("invalid_args", `Invalid args for ${call.tool}: ${first.join("; ")}`);
    }
    const own = descriptor.timeoutMs?.(args) ?? this.#options.defaultTimeoutMs ??
      DEFAULT_TIMEOUT_MS;
    const timeoutMs = Math.min(own, this.#options.maxTimeoutMs ?? own);
    const context = this.#context(await sandbox, timeoutMs);
    context.sandbox.acquire();
    try {
      return await withDeadline(descriptor.run(args, context), timeoutMs + GRACE_MS, () => {
        context.sandbox.close();
      });
    } finally {
      context.sandbox.release();
    }
  }

  #context(sandbox: Sandbox, timeoutMs: number): ToolContext {
    const openCache = () => this.#openCache();
    return {
      policy: this.policy(),
      sandbox,
      timeoutMs,
      httpCache: openCache,
      resolveHost: this.#options.resolveHost ?? systemResolveHost,
      now: this.#options.now ?? Date.now,
      callTool: (tool, args) => this.#run({ id: crypto.randomUUID(), tool, args }),
    };
  }

  /**
   * The warm sandbox, or a new one when the permissions changed or the old one died. A
   * call that starts no program gets no `run` permission: the first that does probes
   * bubblewrap, resolves the allowlist and moves the session to a sandbox that may run
   * them (which then serves every call). A replaced sandbox ends once its calls are done.
   * A new sandbox is handed out as its worker starts: its requests wait there, behind the
   * worker's proof of its permissions.
   */
  async #warmSandbox(startsPrograms: boolean): Promise<Sandbox> {
    const runs = startsPrograms || this.#sandbox?.runsPrograms === true;
    const permissions: SandboxPermissions = {
      root: this.#root,
      net: sandboxNetHosts(this.policy()),
      run: runs ? await this.#runPermissions() : [],
    };
    const key = permissionsKey(permissions);
    const current = this.#sandbox;
    // Calls made together (a composite's parallel steps) share one start.
    if (current && !current.dead && current.key === key) return current;
    if (this.#closed) throw new ToolFailure("sandbox_unavailable", "The tool session is closed");
    const started = Sandbox.launch(permissions);
    current?.retire();
    this.#sandbox = started;
    return started;
  }

  /** The executables `shell.exec` may start here: bwrap, or the resolved allowlist. */
  async #runPermissions(): Promise<string[]> {
    await this.usesBubblewrap();
    const policy = this.policy();
    const key = JSON.stringify([policy.bubblewrap, policy.shellAllow]);
    let run = this.#resolvedPrograms.get(key);
    if (!run) {
      run = shellRunPermissions(policy);
      this.#resolvedPrograms.set(key, run);
    }
    return await run;
  }

  /** The http cache, opened at the first call that may use it (so fs calls create no state). */
  #openCache(): Promise<HttpCache | undefined> {
    const { stateDir, cache } = this.#options;
    if (!stateDir || cache === false || this.#closed) return Promise.resolve(undefined);
    // A cache that failed to open is tried again at the next call, as before.
    this.#httpCache ??= openHttpCache(stateDir).catch((error) => {
      this.#httpCache = undefined;
      throw error;
    });
    return this.#httpCache;
  }

  /** Known secrets masked, and every value under a secret-named field (`lib/core`'s one list). */
  #redact<T>(value: T): T {
    return maskSecretFields(redactValue(value, this.#options.secrets ?? []));
  }

  #summary(result: ToolResult): string {
    return redactText(
      outputSummary(result.ok ? result.output : result.error),
      this.#options.secrets ?? [],
    );
  }

  /**
   * One trace event. Its data (redacted copies of the arguments, the output summary) is
   * made only when there is a sink; if making it fails, the event is not written, as when
   * the sink fails.
   */
  async #emit(
    kind: "tool_start" | "tool_done",
    data: () => Record<string, unknown>,
  ): Promise<void> {
    const sink = this.#options.trace;
    if (!sink) return;
    const nowMs = (this.#options.now ?? Date.now)();
    try {
      const event = { ...data(), ts: new Date(nowMs).toISOString() };
      await sink({ ts: nowMs / 1000, kind, data: event });
    } catch {
      // A failing trace sink must not fail the call.
    }
  }

  /** Stops the sandbox (killing anything it runs) and closes the http cache. */
  close(): void {
    this.#closed = true;
    this.#sandbox?.close();
    this.#sandbox = undefined;
    this.#httpCache?.then((cache) => cache?.close(), () => {});
    this.#httpCache = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

interface ShapedCall {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  problem?: string;
}

/** A call as written by a model: every field checked, nothing trusted. */
function callShape(raw: unknown): ShapedCall {
  if (!isRecord(raw)) {
    return { id: "", tool: "", args: {}, problem: "A tool call must be an object" };
  }
  const id = typeof raw.id === "string" ? raw.id.slice(0, 256) : "";
  const tool = typeof raw.tool === "string" ? raw.tool.slice(0, 256) : "";
  const args = isRecord(raw.args) ? raw.args : {};
  if (typeof raw.id !== "string" || raw.id.length === 0) {
    return { id, tool, args, problem: "A tool call needs a non-empty string id" };
  }
  if (typeof raw.tool !== "string" || raw.tool.length === 0) {
    return { id, tool, args, problem: "A tool call needs a tool name" };
  }
  if (!isRecord(raw.args)) return { id, tool, args, problem: "args must be a JSON object" };
  return { id, tool, args };
}

/** Top-level `default`s of the schema's properties, for keys the call left out. */
function withDefaults(schema: Record<string, unknown>, args: Record<string, unknown>) {
  const copy = copyOwn(args);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, property] of Object.entries(properties)) {
    if (
      !Object.hasOwn(copy, key) && isRecord(property) && Object.hasOwn(property, "default")
    ) {
      copy[key] = structuredClone(property.default);
    }
  }
  return copy;
}

function toToolError(error: unknown): ToolError {
  if (error instanceof ToolFailure) return { code: error.code, message: error.message };
  return { code: "io_error", message: `The tool failed: ${errorMessage(error).slice(0, 300)}` };
}

/** The event outcome of a result: `TIMEOUT` for the `timeout` code, else by `ok`. */
export function toolOutcome(result: ToolResult): ToolOutcome {
  if (result.ok) return "SUCCESS";
  return result.error?.code === "timeout" ? "TIMEOUT" : "FAILURE";
}

/** Resolves with `promise`, or fails with `timeout` (after `onExpire`) once `ms` pass. */
async function withDeadline<T>(promise: Promise<T>, ms: number, onExpire: () => void): Promise<T> {
  let cancel = () => {};
  const deadline = new Promise<never>((_, reject) => {
    cancel = startTimer(ms, () => {
      onExpire();
      reject(new ToolFailure("timeout", `The call took longer than ${Math.round(ms)} ms`));
    });
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    cancel();
  }
}

/** The root's real path, checked to be a folder: two lookups of the path the session was given. */
function realRoot(root: string): string {
  let real: string;
  try {
    real = Deno.realPathSync(root);
  } catch {
    throw new SynError("invalid_root", `Sandbox root does not exist: ${root}`);
  }
  const info = Deno.statSync(real);
  if (!info.isDirectory) {
    throw new SynError("invalid_root", `Sandbox root is not a folder: ${root}`);
  }
  if (real === "/") throw new SynError("invalid_root", "The sandbox root cannot be /");
  return real;
}
