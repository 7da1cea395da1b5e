/**
 * What goes into the single `syn` binary: the permissions it is compiled with, the files
 * embedded beside the code, and the platforms `deno compile --target` can build for.
 * The binary smoke test runs `main.ts` with exactly these permissions, so the list is
 * checked even where no binary can be built.
 */
import { COMMAND_FILES } from "../lib/cli/mod.ts";

/**
 * Every permission. The binary needs files (assets, logs, state, the tool root), the network
 * (providers, the validator, chat and preview servers), the environment, subprocesses (its
 * own `mcp-serve` child, bubblewrap, allowlisted tools, Chromium) and system information —
 * and the tool sandbox's supervisor reads `/proc/self/fd/<fd>` to prove what a sandboxed open
 * really reached (a folder swapped for a symlink after a path check), which Deno allows only
 * to a program holding every permission (`--deny-ffi` already refuses it). The code loads no
 * FFI library and imports nothing from the network: everything is embedded; the sandboxed
 * tools run in a worker that holds only the root.
 */
export const BINARY_PERMISSIONS = ["--allow-all"] as const;

/** Files loaded at run time by path, embedded by name. */
export const EMBEDDED: readonly string[] = [
  // The schema set and examples.
  "schemas",
  // Workers are loaded by URL at run time: their modules must be embedded by name.
  "lib/tools/_sandbox_worker.ts",
  // The preview page: plain modules served as they are.
  "lib/preview/page",
  // Modules that bring in npm packages, imported by computed specifiers (see
  // lib/schema/_ajv_packages.ts and lib/mcp/_late_modules.ts).
  "lib/schema/_ajv_packages.ts",
  "lib/mcp/mcp_bridge.ts",
  "lib/mcp/mcp_http_server.ts",
  "lib/mcp/tools_mcp_server.ts",
  // The validator service's server half, loaded at first use (lib/mcp/server_side.ts).
  "lib/mcp/_server_side.ts",
  // The validator client, loaded at first use (lib/mcp/client_side.ts).
  "lib/mcp/validator_client.ts",
  // The schema store's code, loaded when a store is first asked for (lib/schema/load_schema_store.ts).
  "lib/schema/_schema_store.ts",
  // The tools' implementations a call loads when it first needs them (lib/tools/shell_exec.ts).
  "lib/tools/_shell_exec_run.ts",
  "lib/tools/_http_get_run.ts",
  "lib/tools/bubblewrap.ts",
  "lib/tools/sqlite_http_cache.ts",
  "lib/tools/_write_inside.ts",
  // generate's external generator and patch lifecycle, loaded at their first call
  // (lib/generate/external_generator.ts, lib/generate/patch_lifecycle.ts).
  "lib/generate/_external_generator.ts",
  "lib/generate/_patch_lifecycle.ts",
  // Each command is imported by a computed specifier (see lib/cli/commands.ts), and so are
  // generate's body, loaded once its validator child is started, and mcp-serve's tools.
  ...COMMAND_FILES,
  "lib/cli/_generate_run.ts",
  "lib/cli/_mcp_serve_tools.ts",
];

/** `deno compile --target` values. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-pc-windows-msvc",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
