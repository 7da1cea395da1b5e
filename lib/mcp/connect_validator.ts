import { errorMessage, SECRET_VARIABLE_NAMES } from "../core/mod.ts";
import {
  childValidatorClient,
  connectOverNetwork,
  deadClient,
  type ValidatorClient,
} from "./validator_client.ts";
import {
  resolveValidatorTarget,
  type ValidatorConfig,
  type ValidatorTarget,
} from "./validator_target.ts";

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

/**
 * Connects to the validator service chosen by the environment (see
 * {@linkcode resolveValidatorTarget}). Throws only for a configuration error; a server
 * that cannot be reached gives a client whose every call answers
 * `{ ok: false, reason: "transport_error", detail }`. A stdio child's start is what a
 * one-shot `generate` waits for.
 */
export async function connectValidator(options: ConnectValidatorOptions): Promise<ValidatorClient> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const target = resolveValidatorTarget(
    options.config,
    options.selfCommand,
    { warn: options.warn },
  );
  if (target.transport !== "stdio") {
    return await connectOverNetwork(target, timeoutMs);
  }
  let child: Deno.ChildProcess;
  try {
    child = spawnValidatorProcess(target, options.config, options.warn !== undefined);
  } catch (error) {
    const detail = `cannot start ${target.command[0]}: ${errorMessage(error)}`;
    return deadClient("stdio", detail);
  }
  return childValidatorClient(child, {
    warn: options.warn,
    timeoutMs,
    closeGraceMs: options.closeGraceMs,
  });
}

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
 * Starts a stdio validator: `target.command` with its input and output piped, and its
 * stderr piped when `pipeStderr` (else discarded; never our stdout). It gets the caller's
 * configuration (`forwardedToChild`), the provider keys blanked (a validator has no use for
 * them, and an `MCP_ADAPTER_CMD` may be someone else's program) and `NO_COLOR=1` (what it
 * says reaches the user's terminal as a warning). Our own child gets a ready file of its own
 * unless `MCP_READY_FILE` names one: syn processes running at once would otherwise share
 * the default and remove each other's. Throws what `Deno.Command` throws when the program
 * cannot be started.
 */
function spawnValidatorProcess(
  target: Extract<ValidatorTarget, { transport: "stdio" }>,
  config: ValidatorConfig,
  pipeStderr: boolean,
): Deno.ChildProcess {
  const env: Record<string, string> = {};
  if (target.own && !config.mcp.readyFile) {
    const unique = `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    env.MCP_READY_FILE = `${temporaryDirectory(config.system.tempDir)}/syn-mcp-${unique}.ready`;
  }
  for (const name of SECRET_VARIABLE_NAMES) env[name] = "";
  for (const [name, value] of Object.entries(forwardedToChild(config))) {
    if (value !== undefined) env[name] = value;
  }
  env.NO_COLOR = "1";
  return new Deno.Command(target.command[0], {
    args: target.command.slice(1),
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: pipeStderr ? "piped" : "null",
  }).spawn();
}
