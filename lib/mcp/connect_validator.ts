import { errorMessage } from "../core/mod.ts";
import { loadClientSide } from "./client_side.ts";
import type { ValidatorClient } from "./validator_client.ts";
import { spawnValidatorProcess } from "./validator_process.ts";
import { resolveValidatorTarget, type ValidatorConfig } from "./validator_target.ts";

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
 * `{ ok: false, reason: "transport_error", detail }`. A stdio child is started before the
 * client's code loads (`loadClientSide`): its start is what a one-shot `generate` waits
 * for, and the two then load side by side.
 */
export async function connectValidator(options: ConnectValidatorOptions): Promise<ValidatorClient> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const target = resolveValidatorTarget(
    options.config,
    options.selfCommand,
    options.warn ?? (() => {}),
  );
  if (target.transport !== "stdio") {
    return (await loadClientSide()).connectOverNetwork(target, timeoutMs);
  }
  let child: Deno.ChildProcess;
  try {
    child = spawnValidatorProcess(target, options.config, options.warn !== undefined);
  } catch (error) {
    const detail = `cannot start ${target.command[0]}: ${errorMessage(error)}`;
    return (await loadClientSide()).deadClient("stdio", detail);
  }
  const client = await loadClientSide().catch((error: unknown) => {
    // No client will ever end the child's input: it is stopped here.
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
    throw error;
  });
  return client.childValidatorClient(child, {
    warn: options.warn,
    timeoutMs,
    closeGraceMs: options.closeGraceMs,
  });
}
