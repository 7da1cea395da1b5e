/**
 * What goes into the single `syn` binary: the permissions it is compiled with, the files
 * embedded beside the code, and the platforms `deno compile --target` can build for.
 * The binary smoke test runs `main.ts` with exactly these permissions, so the list is
 * checked even where no binary can be built.
 */
import { COMMAND_FILES } from "../lib/cli/mod.ts";

/**
 * The least the binary needs: files (assets, logs, state, the tool root), the network
 * (providers, the validator, chat and preview servers), the environment (configuration,
 * keys), subprocesses (its own `mcp-serve` child, bubblewrap, allowlisted tools, Chromium)
 * and system information (the Chromium driver asks for it). No FFI, no imports from the
 * network at run time: everything is embedded.
 */
export const BINARY_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
] as const;

/** Files loaded at run time by path, embedded by name. */
export const EMBEDDED: readonly string[] = [
  // The schema set and examples.
  "schemas",
  // Workers are loaded by URL at run time: their modules must be embedded by name.
  "lib/tools/_sandbox_worker.ts",
  // The preview page: plain modules served as they are.
  "lib/preview/page",
  // Each command is imported by a computed specifier (see lib/cli/commands.ts).
  ...COMMAND_FILES,
];

/** `deno compile --target` values. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-pc-windows-msvc",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
