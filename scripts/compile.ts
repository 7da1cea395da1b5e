/**
 * Builds the single `syn` binary with the schemas and the tool sandbox's worker embedded:
 * `deno task compile`.
 *
 * `deno compile` needs a `denort` runtime. It downloads one from the internet unless
 * `DENORT_BIN` points at a local copy; on machines without that access the build
 * cannot work, and this script says so plainly instead of printing a raw stack.
 */
import { fileURLToPath } from "node:url";
const output = Deno.args[0] ?? "dist/syn";
const denortBin = Deno.env.get("DENORT_BIN");

const command = new Deno.Command(Deno.execPath(), {
  args: [
    "compile",
    "-A",
    // The tool sandbox gives its worker fewer permissions than the binary has.
    "--unstable-worker-options",
    "--include",
    "schemas",
    // Workers are loaded by URL at run time: their modules must be embedded by name.
    "--include",
    "lib/tools/_sandbox_worker.ts",
    "--output",
    output,
    fileURLToPath(new URL("../main.ts", import.meta.url)),
  ],
  stdout: "inherit",
  stderr: "piped",
});
console.error(
  `compile: building ${output}` +
    (denortBin ? ` with DENORT_BIN=${denortBin}` : " (downloads the denort runtime)"),
);
const result = await command.output();
const stderr = new TextDecoder().decode(result.stderr);
if (result.code === 0) {
  console.error(`compile: wrote ${output}; try: ${output} --version`);
  Deno.exit(0);
}
const offline = /download|dl\.deno\.land|error sending request|dns error|connect/i.test(stderr);
console.error(stderr.trim().split("\n").slice(0, 6).join("\n"));
if (offline && !denortBin) {
  console.error(
    "compile: the denort runtime could not be downloaded (no internet access here).\n" +
      "compile: set DENORT_BIN to a denort binary for Deno " + Deno.version.deno +
      " and run again, or build on a machine with internet access.\n" +
      "compile: until then, run syn with: deno run -A main.ts <command>",
  );
} else {
  console.error("compile: deno compile failed (see above)");
}
Deno.exit(1);
