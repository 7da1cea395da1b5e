/**
 * Builds the single `syn` binary with the schemas, the preview page and the tool
 * sandbox's worker embedded and only the permissions it needs: `deno task compile
 * [--target T] [--output PATH] [--verbose]`.
 *
 * `deno compile` needs a `denort` runtime for the target. It downloads one unless
 * `DENORT_BIN` points at a local copy; where neither works (no internet access), this
 * says so in one line and exits 1, instead of printing a raw stack.
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { BINARY_PERMISSIONS, EMBEDDED, TARGETS } from "./compile_options.ts";

const HELP = `deno task compile [--target T] [--output PATH] [--verbose]

Builds dist/syn (dist/syn-<target> with --target; .exe for Windows) with ${
  EMBEDDED.join(", ")
} embedded and the permissions ${BINARY_PERMISSIONS.join(" ")}.
Targets: ${TARGETS.join(", ")}.
DENORT_BIN=/path/to/denort uses a local runtime instead of downloading one.`;

function fail(line: string): never {
  console.error(`compile: ${line}`);
  Deno.exit(1);
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    target: { type: "string" },
    output: { type: "string" },
    verbose: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});
if (values.help) {
  console.log(HELP);
  Deno.exit(0);
}
const target = values.target;
if (target !== undefined && !(TARGETS as readonly string[]).includes(target)) {
  fail(`unknown --target ${target} (one of ${TARGETS.join(", ")})`);
}
const windows = target?.includes("windows") ?? Deno.build.os === "windows";
const output = values.output ?? `dist/syn${target ? `-${target}` : ""}${windows ? ".exe" : ""}`;
const denortBin = Deno.env.get("DENORT_BIN");
if (denortBin !== undefined) {
  const isFile = await Deno.stat(denortBin).then((info) => info.isFile, () => false);
  if (!isFile) fail(`DENORT_BIN is not a file: ${denortBin}`);
}

const root = new URL("../", import.meta.url);
const command = new Deno.Command(Deno.execPath(), {
  args: [
    "compile",
    ...BINARY_PERMISSIONS,
    // The tool sandbox gives its worker fewer permissions than the binary has.
    "--unstable-worker-options",
    ...EMBEDDED.flatMap((path) => ["--include", path]),
    ...(target ? ["--target", target] : []),
    "--output",
    output,
    fileURLToPath(new URL("main.ts", root)),
  ],
  cwd: fileURLToPath(root),
  stdout: "piped",
  stderr: "piped",
});
console.error(
  `compile: building ${output} for ${target ?? "this platform"}` +
    (denortBin ? ` with DENORT_BIN=${denortBin}` : ""),
);
const result = await command.output();
const stderr = new TextDecoder().decode(result.stderr);
if (values.verbose) console.error(stderr.trim());
if (result.code === 0) {
  console.error(`compile: wrote ${output}; try: ${output} --version`);
  Deno.exit(0);
}
const offline = /dl\.deno\.land|download|error sending request|dns error|connect/i.test(stderr);
if (offline && !denortBin) {
  fail(
    `cannot build ${output}: the denort runtime for Deno ${Deno.version.deno} ` +
      `(${target ?? "this platform"}) cannot be downloaded here and DENORT_BIN is not set; ` +
      `use the launcher instead ('npx -y deno@${Deno.version.deno} task install' writes ` +
      "~/.local/bin/syn, which runs syn from any folder)",
  );
}
const reason = stderr.split("\n").map((line) => line.trim()).filter(Boolean).at(-1);
fail(
  `deno compile failed: ${reason ?? `exit ${result.code}`}${
    values.verbose ? "" : " (--verbose shows more)"
  }`,
);
