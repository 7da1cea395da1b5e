import { SECRET_VARIABLE_NAMES } from "../core/mod.ts";
import type { ValidatorConfig, ValidatorTarget } from "./validator_target.ts";

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
export function spawnValidatorProcess(
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
